import type { RedisConnection } from '../redis/redis-connection';
import { NOW } from '../redis/lua-clock';
import { LuaScript } from '../redis/lua-script';

/*
 * Every script takes its time from Redis TIME, so the clocks of the replicas do not matter.
 * Tests pass a time in ms as the last argument instead. Keys whose meaning changes with time
 * (the minute, the UTC day) keep that time inside the value rather than in the key name, so
 * every key a script touches is declared in KEYS (as Redis Cluster requires). Expiry is only
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
 * new count, the key expiring at the minute's end.
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
  redis.call('PEXPIRE', key, (minute + 1) * 60000 - now)
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
 * KEYS: minute hash {minute, count, turn_minute, turns}. ARGV: limit, 'turn' (the chat product) or '', [now ms].
 * Counts the request in the current UTC minute unless `limit` is reached (a refusal writes
 * nothing); the chat product's count also leaves a counted turn for its AcquirePlace.
 * Returns {allowed 0/1, count, now ms}.
 */
export const COUNT_REQUEST = new LuaScript(
  'count_request',
  `${NOW}${MINUTE_COUNT}${TURN_CREDITS}
local now = now_ms(ARGV[3])
local count = minute_count(KEYS[1], now)
if count >= tonumber(ARGV[1]) then return {0, count, now} end
count = count_one(KEYS[1], count, now)
if ARGV[2] == 'turn' then set_turn_credits(KEYS[1], turn_credits(KEYS[1], now) + 1, now) end
return {1, count, now}
`,
);

/**
 * KEYS: places hash {request id: grant ms[:caller]}, last-grant string, minute hash.
 * ARGV: request id, limit, recovery ms, caller, per-minute limit (0: counts nothing), [now ms].
 * A request id whose place another caller holds is refused and nothing changes. With a
 * per-minute limit (the chat product's turn) the turn is counted first, unless the request
 * holds its place already or a counted turn of this minute is left: over the limit it is
 * refused and nothing changes. Then a place is granted when the request holds one already or
 * fewer than `limit` are held; only a grant moves the last-grant time and the expiry of both keys.
 * Returns {outcome: 1 granted, 0 no place, 2 rate limited, 3 another caller's, count (0 when not
 * counting), now ms}.
 */
export const ACQUIRE_PLACE = new LuaScript(
  'acquire_place',
  `${NOW}${LIVE_PLACES}${MINUTE_COUNT}${TURN_CREDITS}${PLACE_OWNER}
local rid = ARGV[1]
local now = now_ms(ARGV[6])
local limit = tonumber(ARGV[2])
local recovery = tonumber(ARGV[3])
local caller = ARGV[4]
local per_minute = tonumber(ARGV[5])
live_places(KEYS[1], KEYS[2], now, recovery)
if another_callers(KEYS[1], rid, caller) then return {3, 0, now} end
local held = redis.call('HEXISTS', KEYS[1], rid) == 1
local count = 0
if per_minute > 0 then
  count = minute_count(KEYS[3], now)
  local credits = turn_credits(KEYS[3], now)
  if held then
  elseif credits > 0 then
    set_turn_credits(KEYS[3], credits - 1, now)
  elseif count >= per_minute then
    return {2, count, now}
  else
    count = count_one(KEYS[3], count, now)
  end
end
if not held and redis.call('HLEN', KEYS[1]) >= limit then return {0, count, now} end
redis.call('HSET', KEYS[1], rid, place_value(now, caller))
redis.call('PEXPIRE', KEYS[1], recovery)
redis.call('SET', KEYS[2], now, 'PX', recovery)
return {1, count, now}
`,
);

/**
 * Lua: adds `tokens` to today (restarting it on a new UTC day; the key lives 2 days past its last
 * write) and to the total.
 */
export const ADD_USAGE = `
local function add_usage(today, total, tokens, now)
  local day = math.floor(now / 86400000)
  if tonumber(redis.call('HGET', today, 'day')) ~= day then
    redis.call('HSET', today, 'day', day, 'tokens', 0)
  end
  redis.call('HINCRBY', today, 'tokens', tokens)
  redis.call('EXPIRE', today, 172800)
  redis.call('INCRBY', total, tokens)
end
`;

/**
 * KEYS: places hash, last-grant string, today hash {day, tokens}, total string.
 * ARGV: request id, tokens, recovery ms, caller, [now ms].
 * A place another caller took is refused and nothing changes. Else frees the request's place if
 * the places are still live, and always adds the tokens to the usage.
 * Returns {released 0/1, refused 0/1}.
 */
export const RELEASE_PLACE = new LuaScript(
  'release_place',
  `${NOW}${LIVE_PLACES}${ADD_USAGE}${PLACE_OWNER}
local now = now_ms(ARGV[5])
local released = 0
if live_places(KEYS[1], KEYS[2], now, tonumber(ARGV[3])) then
  if another_callers(KEYS[1], ARGV[1], ARGV[4]) then return {0, 1} end
  released = redis.call('HDEL', KEYS[1], ARGV[1])
end
add_usage(KEYS[3], KEYS[4], ARGV[2], now)
return {released, 0}
`,
);

/**
 * KEYS: places hash, last-grant string, today hash, total string, finished sorted set {request id: ms}.
 * ARGV: request id, tokens, recovery ms, memory ms, [now ms].
 * The edge's end of a request, once per request id (an id finished less than `memory` ms ago
 * changes nothing): frees the request's place if the places are still live and the edge took it
 * (a place of the chat product under the same id stays its own), and adds the tokens to the usage.
 * Returns {released 0/1, repeated 0/1}.
 */
export const FINISH_REQUEST = new LuaScript(
  'finish_request',
  `${NOW}${LIVE_PLACES}${ADD_USAGE}${PLACE_OWNER}
local now = now_ms(ARGV[5])
local memory = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - memory)
if redis.call('ZSCORE', KEYS[5], ARGV[1]) then return {0, 1} end
redis.call('ZADD', KEYS[5], now, ARGV[1])
redis.call('PEXPIRE', KEYS[5], memory)
local released = 0
if live_places(KEYS[1], KEYS[2], now, tonumber(ARGV[3])) and not another_callers(KEYS[1], ARGV[1], 'edge') then
  released = redis.call('HDEL', KEYS[1], ARGV[1])
end
add_usage(KEYS[3], KEYS[4], ARGV[2], now)
return {released, 0}
`,
);

/**
 * KEYS: today hash, total string. ARGV: [now ms].
 * Returns {today's tokens (0 when the hash is of another day), total tokens}.
 */
export const GET_USAGE = new LuaScript(
  'get_usage',
  `${NOW}
local now = now_ms(ARGV[1])
local today = redis.call('HMGET', KEYS[1], 'day', 'tokens')
local tokens = 0
if tonumber(today[1]) == math.floor(now / 86400000) then tokens = tonumber(today[2]) or 0 end
return {tokens, tonumber(redis.call('GET', KEYS[2])) or 0}
`,
);

/** SCRIPT LOAD of every script above; run on each new connection (EVALSHA falls back to EVAL anyway). */
export async function loadLimitScripts(redis: RedisConnection): Promise<void> {
  await Promise.all([COUNT_REQUEST, ACQUIRE_PLACE, RELEASE_PLACE, FINISH_REQUEST, GET_USAGE].map((script) => script.load(redis)));
}
