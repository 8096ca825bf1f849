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
 * KEYS: minute hash {minute, count}. ARGV: limit, [now ms].
 * Counts the request in the current UTC minute unless `limit` is reached (a refusal writes nothing).
 * Returns {allowed 0/1, count, now ms}.
 */
export const COUNT_REQUEST = new LuaScript(
  'count_request',
  `${NOW}${MINUTE_COUNT}
local now = now_ms(ARGV[2])
local count = minute_count(KEYS[1], now)
if count >= tonumber(ARGV[1]) then return {0, count, now} end
return {1, count_one(KEYS[1], count, now), now}
`,
);

/**
 * KEYS: places hash {request id: grant ms}, last-grant string. ARGV: request id, limit, recovery ms, [now ms].
 * Grants a place when the request holds one already or fewer than `limit` are held; only a grant
 * moves the last-grant time and the expiry of both keys. Returns {granted 0/1}.
 */
export const ACQUIRE_PLACE = new LuaScript(
  'acquire_place',
  `${NOW}${LIVE_PLACES}
local now = now_ms(ARGV[4])
local limit = tonumber(ARGV[2])
local recovery = tonumber(ARGV[3])
live_places(KEYS[1], KEYS[2], now, recovery)
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= limit then return {0} end
redis.call('HSET', KEYS[1], ARGV[1], now)
redis.call('PEXPIRE', KEYS[1], recovery)
redis.call('SET', KEYS[2], now, 'PX', recovery)
return {1}
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
 * ARGV: request id, tokens, recovery ms, [now ms].
 * Frees the request's place if the places are still live, and always adds the tokens to the usage.
 * Returns {released 0/1}.
 */
export const RELEASE_PLACE = new LuaScript(
  'release_place',
  `${NOW}${LIVE_PLACES}${ADD_USAGE}
local now = now_ms(ARGV[4])
local released = 0
if live_places(KEYS[1], KEYS[2], now, tonumber(ARGV[3])) then
  released = redis.call('HDEL', KEYS[1], ARGV[1])
end
add_usage(KEYS[3], KEYS[4], ARGV[2], now)
return {released}
`,
);

/**
 * KEYS: places hash, last-grant string, today hash, total string, finished sorted set {request id: ms}.
 * ARGV: request id, tokens, recovery ms, memory ms, [now ms].
 * RELEASE_PLACE once per request id: an id finished less than `memory` ms ago changes nothing.
 * Returns {released 0/1, repeated 0/1}.
 */
export const FINISH_REQUEST = new LuaScript(
  'finish_request',
  `${NOW}${LIVE_PLACES}${ADD_USAGE}
local now = now_ms(ARGV[5])
local memory = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - memory)
if redis.call('ZSCORE', KEYS[5], ARGV[1]) then return {0, 1} end
redis.call('ZADD', KEYS[5], now, ARGV[1])
redis.call('PEXPIRE', KEYS[5], memory)
local released = 0
if live_places(KEYS[1], KEYS[2], now, tonumber(ARGV[3])) then
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
