import type Redis from 'ioredis';
import { LuaScript } from './lua-script';

/*
 * Every script takes its time from Redis TIME, so the clocks of the replicas do not matter.
 * Tests pass a time in ms as the last argument instead. Keys whose meaning changes with time
 * (the minute, the UTC day) keep that time inside the value rather than in the key name, so
 * every key a script touches is declared in KEYS (as Redis Cluster requires). Expiry is only
 * clean-up: the rules compare stored times, so a test clock ahead of Redis still behaves.
 */
const NOW = `
local function now_ms(arg)
  local given = tonumber(arg)
  if given then return given end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/** Places clear when the last grant is at least `recovery` ms old. Returns true when they are live. */
const LIVE_PLACES = `
local function live_places(places, last_grant, now, recovery)
  local last = tonumber(redis.call('GET', last_grant))
  if last and now - last < recovery then return true end
  redis.call('DEL', places, last_grant)
  return false
end
`;

/**
 * KEYS: minute hash {minute, count}. ARGV: limit, [now ms].
 * Counts the request in the current UTC minute unless `limit` is reached (a refusal writes nothing).
 * Returns {allowed 0/1, count, now ms}.
 */
export const COUNT_REQUEST = new LuaScript(
  'count_request',
  `${NOW}
local now = now_ms(ARGV[2])
local limit = tonumber(ARGV[1])
local minute = math.floor(now / 60000)
local state = redis.call('HMGET', KEYS[1], 'minute', 'count')
local count = 0
if tonumber(state[1]) == minute then count = tonumber(state[2]) or 0 end
if count >= limit then return {0, count, now} end
count = count + 1
redis.call('HSET', KEYS[1], 'minute', minute, 'count', count)
redis.call('PEXPIRE', KEYS[1], (minute + 1) * 60000 - now)
return {1, count, now}
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
 * KEYS: places hash, last-grant string, today hash {day, tokens}, total string.
 * ARGV: request id, tokens, recovery ms, [now ms].
 * Frees the request's place if the places are still live, and always adds the tokens to today
 * (restarting it on a new UTC day; the key lives 2 days past its last write) and to the total.
 * Returns {released 0/1}.
 */
export const RELEASE_PLACE = new LuaScript(
  'release_place',
  `${NOW}${LIVE_PLACES}
local now = now_ms(ARGV[4])
local released = 0
if live_places(KEYS[1], KEYS[2], now, tonumber(ARGV[3])) then
  released = redis.call('HDEL', KEYS[1], ARGV[1])
end
local day = math.floor(now / 86400000)
if tonumber(redis.call('HGET', KEYS[3], 'day')) ~= day then
  redis.call('HSET', KEYS[3], 'day', day, 'tokens', 0)
end
redis.call('HINCRBY', KEYS[3], 'tokens', ARGV[2])
redis.call('EXPIRE', KEYS[3], 172800)
redis.call('INCRBY', KEYS[4], ARGV[2])
return {released}
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
export async function loadLimitScripts(redis: Redis): Promise<void> {
  await Promise.all([COUNT_REQUEST, ACQUIRE_PLACE, RELEASE_PLACE, GET_USAGE].map((script) => script.load(redis)));
}
