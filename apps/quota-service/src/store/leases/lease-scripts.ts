import type { RedisConnection } from '../redis/redis-connection';
import { NOW } from '../redis/lua-clock';
import { defineScript } from '../redis/lua-script';

/*
 * The leases of one shard (store/redis/redis-keys.ts), two keys in one slot: a sorted set {request id: lapse
 * ms} and a hash {request id: JSON of the last renewal}. The first argument, `clock`, is a test
 * clock (ms) or '' for Redis TIME, so that the variable part of a call can follow it.
 */

/** The keys of every lease script. */
const LEASE_KEYS = ['lapse', 'data'] as const;

/** Starts or replaces a lease. */
export const START_LEASE = defineScript('start_lease', {
  keys: LEASE_KEYS,
  args: ['clock', 'ttl', 'rid', 'json'],
  uses: NOW,
  body: `
local now = now_ms(clock)
redis.call('ZADD', lapse, now + tonumber(ttl), rid)
redis.call('HSET', data, rid, json)
return {1}
`,
});

/** `renewals`: request id and JSON pairs. Renews each lease that exists; returns the request ids that have none. */
export const RENEW_LEASES = defineScript('renew_leases', {
  keys: LEASE_KEYS,
  args: ['clock', 'ttl'],
  restArgs: 'renewals',
  uses: NOW,
  body: `
local lapses_at = now_ms(clock) + tonumber(ttl)
local unknown = {}
for i = 1, #renewals, 2 do
  if redis.call('ZSCORE', lapse, renewals[i]) then
    redis.call('ZADD', lapse, lapses_at, renewals[i])
    redis.call('HSET', data, renewals[i], renewals[i + 1])
  else
    table.insert(unknown, renewals[i])
  end
end
return unknown
`,
});

/** Ends a lease. */
export const END_LEASE = defineScript('end_lease', {
  keys: LEASE_KEYS,
  args: ['rid'],
  body: `
redis.call('ZREM', lapse, rid)
redis.call('HDEL', data, rid)
return {1}
`,
});

/** Up to `max` lapsed leases, oldest first, each moved to lapse again `claim` ms from now. Returns their JSON. */
export const CLAIM_LAPSED = defineScript('claim_lapsed', {
  keys: LEASE_KEYS,
  args: ['clock', 'max', 'claim'],
  uses: NOW,
  body: `
local now = now_ms(clock)
local ids = redis.call('ZRANGEBYSCORE', lapse, '-inf', now, 'LIMIT', 0, tonumber(max))
local claimed = {}
for _, id in ipairs(ids) do
  local json = redis.call('HGET', data, id)
  if json then
    redis.call('ZADD', lapse, now + tonumber(claim), id)
    table.insert(claimed, json)
  else
    redis.call('ZREM', lapse, id)
  end
end
return claimed
`,
});

/**
 * Marks a claimed lapsed lease (`claimed`: the JSON claimed): its JSON gets lapsedAtMs (now) and
 * it lapses again `grace` from now. Returns {1} marked, {2} when the lease's JSON is no longer the
 * one claimed (renewed since: left alone), {0} when it has ended.
 */
export const HOLD_LAPSED = defineScript('hold_lapsed', {
  keys: LEASE_KEYS,
  args: ['clock', 'grace', 'rid', 'claimed'],
  uses: NOW,
  body: `
local now = now_ms(clock)
local json = redis.call('HGET', data, rid)
if not json then return {0} end
if json ~= claimed then return {2} end
redis.call('ZADD', lapse, now + tonumber(grace), rid)
redis.call('HSET', data, rid, string.sub(json, 1, -2) .. ',"lapsedAtMs":' .. string.format('%.0f', now) .. '}')
return {1}
`,
});

/** SCRIPT LOAD of every lease script; run on each new connection. */
export async function loadLeaseScripts(redis: RedisConnection): Promise<void> {
  await Promise.all([START_LEASE, RENEW_LEASES, END_LEASE, CLAIM_LAPSED, HOLD_LAPSED].map((script) => script.load(redis)));
}
