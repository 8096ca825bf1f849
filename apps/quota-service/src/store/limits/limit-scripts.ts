import type { RedisConnection } from '../redis/redis-connection';
import { NOW } from '../redis/lua-clock';
import { defineScript } from '../redis/lua-script';

/*
 * Every script takes its time from Redis TIME, so the clocks of the replicas do not matter.
 * Tests pass a time in ms as the last argument instead. Keys whose meaning changes with time
 * (the minute, the UTC day) keep that time inside the value rather than in the key name, so
 * every key a script touches is declared in its keys (as Redis Cluster requires). Expiry is only
 * clean-up: the rules compare stored times, so a test clock ahead of Redis still behaves.
 */

/** Lua: places clear when the last grant is at least `recovery` ms old. Returns true when they are live. */
export const LIVE_PLACES = `
local function live_places(places, last_grant, now, recovery)
  local last = tonumber(redis.call('GET', last_grant))
  if last and now - last < recovery then return true end
  redis.call('DEL', places, last_grant)
  return false
end
`;

/**
 * Lua, the minute hash {minute, count}: `minute_count` is the count of the current UTC minute (0
 * when the hash is of an earlier one); `count_one` counts one more request in it and returns the
 * new count, the key expiring at the minute's end (set by the minute's first count: a later one
 * would set the same end).
 */
export const MINUTE_COUNT = `
local function minute_count(key, now)
  local state = redis.call('HMGET', key, 'minute', 'count')
  if tonumber(state[1]) == math.floor(now / 60000) then return tonumber(state[2]) or 0 end
  return 0
end
local function count_one(key, count, now)
  local minute = math.floor(now / 60000)
  redis.call('HSET', key, 'minute', minute, 'count', count + 1)
  if count == 0 then redis.call('PEXPIRE', key, (minute + 1) * 60000 - now) end
  return count + 1
end
`;

/**
 * Lua, the chat product's counted turns in the minute hash {turn_minute, turns}: an allowed
 * chat-product CountRequest (an older chat product counts there before AcquirePlace) leaves one,
 * and its next AcquirePlace of the same minute takes it instead of counting again, so that no
 * more turns take a place in a minute than were counted in it. A turn of another minute is none.
 */
export const TURN_CREDITS = `
local function turn_credits(key, now)
  local state = redis.call('HMGET', key, 'turn_minute', 'turns')
  if tonumber(state[1]) == math.floor(now / 60000) then return tonumber(state[2]) or 0 end
  return 0
end
local function set_turn_credits(key, turns, now)
  redis.call('HSET', key, 'turn_minute', math.floor(now / 60000), 'turns', turns)
end
`;

/**
 * Lua, who took a place: the places hash keeps {request id: grant ms} for the edge (as Admit and
 * older releases write it, which is what the audit and every older script read), and
 * 'grant ms:caller' for any other caller. An empty caller is a plain-text server's, where no
 * identity is known: its places are written as the edge's and it may free any place.
 */
export const PLACE_OWNER = `
local function place_owner(places, rid)
  local value = redis.call('HGET', places, rid)
  if not value then return nil end
  return string.match(value, '^%d+:(.+)$') or 'edge'
end
local function place_value(now, caller)
  if caller == '' or caller == 'edge' then return now end
  return string.format('%d:%s', now, caller)
end
local function another_callers(places, rid, caller)
  local owner = place_owner(places, rid)
  return owner ~= nil and caller ~= '' and owner ~= caller
end
`;

/**
 * Counts the request in the current UTC minute unless `limit` is reached (a refusal writes
 * nothing); the chat product's count (`turn` is 'turn', else '') also leaves a counted turn for
 * its AcquirePlace. The minute hash is {minute, count, turn_minute, turns}.
 * Returns {allowed 0/1, count, now ms}.
 */
export const COUNT_REQUEST = defineScript('count_request', {
  keys: ['minute'],
  args: ['limit', 'turn'],
  uses: `${NOW}${MINUTE_COUNT}${TURN_CREDITS}`,
  body: `
local now = now_ms(clock)
local count = minute_count(minute, now)
if count >= tonumber(limit) then return {0, count, now} end
count = count_one(minute, count, now)
if turn == 'turn' then set_turn_credits(minute, turn_credits(minute, now) + 1, now) end
return {1, count, now}
`,
});

/**
 * Places hash {request id: grant ms[:caller]}. A request id whose place another caller holds is
 * refused and nothing changes. With a `per_minute` limit (the chat product's turn; 0 counts
 * nothing) the turn is counted first, unless the request holds its place already or a counted
 * turn of this minute is left: over the limit it is refused and nothing changes. Then a place is
 * granted when the request holds one already or fewer than `limit` are held; only a grant moves
 * the last-grant time and the expiry of both keys.
 * Returns {outcome: 1 granted, 0 no place, 2 rate limited, 3 another caller's, count (0 when not
 * counting), now ms}.
 */
export const ACQUIRE_PLACE = defineScript('acquire_place', {
  keys: ['places', 'last_grant', 'minute'],
  args: ['rid', 'limit', 'recovery', 'caller', 'per_minute'],
  uses: `${NOW}${LIVE_PLACES}${MINUTE_COUNT}${TURN_CREDITS}${PLACE_OWNER}`,
  body: `
local now = now_ms(clock)
live_places(places, last_grant, now, tonumber(recovery))
if another_callers(places, rid, caller) then return {3, 0, now} end
local held = redis.call('HEXISTS', places, rid) == 1
local count = 0
if tonumber(per_minute) > 0 then
  count = minute_count(minute, now)
  local credits = turn_credits(minute, now)
  if held then
  elseif credits > 0 then
    set_turn_credits(minute, credits - 1, now)
  elseif count >= tonumber(per_minute) then
    return {2, count, now}
  else
    count = count_one(minute, count, now)
  end
end
if not held and redis.call('HLEN', places) >= tonumber(limit) then return {0, count, now} end
redis.call('HSET', places, rid, place_value(now, caller))
redis.call('PEXPIRE', places, recovery)
redis.call('SET', last_grant, now, 'PX', recovery)
return {1, count, now}
`,
});

/**
 * Lua: adds `tokens` to today (restarting it on a new UTC day; the key lives 2 days past its day's
 * first write, which is a day past its day's end at least: only clean-up, as readers compare the
 * day) and to the total.
 */
export const ADD_USAGE = `
local function add_usage(today, total, tokens, now)
  local day = math.floor(now / 86400000)
  if tonumber(redis.call('HGET', today, 'day')) ~= day then
    redis.call('HSET', today, 'day', day, 'tokens', 0)
    redis.call('EXPIRE', today, 172800)
  end
  redis.call('HINCRBY', today, 'tokens', tokens)
  redis.call('INCRBY', total, tokens)
end
`;

/**
 * Today hash {day, tokens}, total string. A place another caller took is refused and nothing
 * changes. Else frees the request's place if the places are still live, and always adds the
 * tokens to the usage.
 * Returns {released 0/1, refused 0/1}.
 */
export const RELEASE_PLACE = defineScript('release_place', {
  keys: ['places', 'last_grant', 'today', 'total'],
  args: ['rid', 'tokens', 'recovery', 'caller'],
  uses: `${NOW}${LIVE_PLACES}${ADD_USAGE}${PLACE_OWNER}`,
  body: `
local now = now_ms(clock)
local released = 0
if live_places(places, last_grant, now, tonumber(recovery)) then
  if another_callers(places, rid, caller) then return {0, 1} end
  released = redis.call('HDEL', places, rid)
end
add_usage(today, total, tokens, now)
return {released, 0}
`,
});

/**
 * Finished sorted set {request id: ms}. The edge's end of a request, once per request id (an id
 * finished less than `memory` ms ago changes nothing): frees the request's place if the places
 * are still live and the edge took it (a place of the chat product under the same id stays its
 * own), and adds the tokens to the usage.
 * Returns {released 0/1, repeated 0/1}.
 */
export const FINISH_REQUEST = defineScript('finish_request', {
  keys: ['places', 'last_grant', 'today', 'total', 'finished'],
  args: ['rid', 'tokens', 'recovery', 'memory'],
  uses: `${NOW}${LIVE_PLACES}${ADD_USAGE}${PLACE_OWNER}`,
  body: `
local now = now_ms(clock)
redis.call('ZREMRANGEBYSCORE', finished, '-inf', now - tonumber(memory))
if redis.call('ZSCORE', finished, rid) then return {0, 1} end
redis.call('ZADD', finished, now, rid)
redis.call('PEXPIRE', finished, memory)
local released = 0
if live_places(places, last_grant, now, tonumber(recovery)) and not another_callers(places, rid, 'edge') then
  released = redis.call('HDEL', places, rid)
end
add_usage(today, total, tokens, now)
return {released, 0}
`,
});

/** Returns {today's tokens (0 when the hash is of another day), total tokens}. */
export const GET_USAGE = defineScript('get_usage', {
  keys: ['today', 'total'],
  args: [],
  uses: NOW,
  body: `
local now = now_ms(clock)
local state = redis.call('HMGET', today, 'day', 'tokens')
local tokens = 0
if tonumber(state[1]) == math.floor(now / 86400000) then tokens = tonumber(state[2]) or 0 end
return {tokens, tonumber(redis.call('GET', total)) or 0}
`,
});

/** SCRIPT LOAD of every script above; run on each new connection (EVALSHA falls back to EVAL anyway). */
export async function loadLimitScripts(redis: RedisConnection): Promise<void> {
  await Promise.all([COUNT_REQUEST, ACQUIRE_PLACE, RELEASE_PLACE, FINISH_REQUEST, GET_USAGE].map((script) => script.load(redis)));
}
