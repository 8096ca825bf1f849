import type { RedisConnection } from '../redis/redis-connection';
import { NOW } from '../redis/lua-clock';
import { LuaScript } from '../redis/lua-script';

/*
 * The leases of one shard (store/redis/redis-keys.ts), two keys in one slot: a sorted set {request id: lapse
 * ms} and a hash {request id: JSON of the last renewal}. ARGV[1] is a test clock (ms) or '' for
 * Redis TIME, so that the variable part of a call can follow it.
 */

/** KEYS: lapse zset, data hash. ARGV: [now], ttl ms, request id, JSON. Starts or replaces a lease. */
export const START_LEASE = new LuaScript(
  'start_lease',
  `${NOW}
local now = now_ms(ARGV[1])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
return {1}
`,
);

/**
 * KEYS: lapse zset, data hash. ARGV: [now], ttl ms, then request id and JSON pairs.
 * Renews each lease that exists; returns the request ids that have none.
 */
export const RENEW_LEASES = new LuaScript(
  'renew_leases',
  `${NOW}
local lapse = now_ms(ARGV[1]) + tonumber(ARGV[2])
local unknown = {}
for i = 3, #ARGV, 2 do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], lapse, ARGV[i])
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  else
    table.insert(unknown, ARGV[i])
  end
end
return unknown
`,
);

/** KEYS: lapse zset, data hash. ARGV: request id. Ends a lease. */
export const END_LEASE = new LuaScript(
  'end_lease',
  `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return {1}
`,
);

/**
 * KEYS: lapse zset, data hash. ARGV: [now], max, claim ms.
 * Up to `max` lapsed leases, oldest first, each moved to lapse again `claim` ms from now.
 * Returns their JSON.
 */
export const CLAIM_LAPSED = new LuaScript(
  'claim_lapsed',
  `${NOW}
local now = now_ms(ARGV[1])
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local claimed = {}
for _, id in ipairs(ids) do
  local data = redis.call('HGET', KEYS[2], id)
  if data then
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), id)
    table.insert(claimed, data)
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return claimed
`,
);

/**
 * KEYS: lapse zset, data hash. ARGV: [now], grace ms, request id, the JSON claimed.
 * Marks a claimed lapsed lease: its JSON gets lapsedAtMs (now) and it lapses again `grace` from
 * now. Returns {1} marked, {2} when the lease's JSON is no longer the one claimed (renewed since:
 * left alone), {0} when it has ended.
 */
export const HOLD_LAPSED = new LuaScript(
  'hold_lapsed',
  `${NOW}
local now = now_ms(ARGV[1])
local data = redis.call('HGET', KEYS[2], ARGV[3])
if not data then return {0} end
if data ~= ARGV[4] then return {2} end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('HSET', KEYS[2], ARGV[3], string.sub(data, 1, -2) .. ',"lapsedAtMs":' .. string.format('%.0f', now) .. '}')
return {1}
`,
);

/**
 * KEYS: lapse zset, data hash. ARGV: [now], max.
 * Writes nothing: up to `max` request ids lapsed by now, oldest first, each followed by its lapse
 * ms, so that a claim over several shards can take the oldest of all.
 */
export const LAPSED_LEASES = new LuaScript(
  'lapsed_leases',
  `${NOW}
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now_ms(ARGV[1]), 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
`,
);

/** SCRIPT LOAD of every lease script; run on each new connection. */
export async function loadLeaseScripts(redis: RedisConnection): Promise<void> {
  await Promise.all([START_LEASE, RENEW_LEASES, END_LEASE, CLAIM_LAPSED, HOLD_LAPSED, LAPSED_LEASES].map((script) => script.load(redis)));
}
