import type { RedisConnection } from '../redis/redis-connection';
import { NOW } from '../redis/lua-clock';
import { defineScript } from '../redis/lua-script';

/**
 * Lua for daily budgets. A daily budget is three keys in one slot: a hash {day, used}, a hash {hold id: tokens} and a
 * sorted set {hold id: expiry ms}. `used` counts the settled tokens of the UTC day `day` plus
 * its live reservations. The same scripts serve an account's allowance (keys under the
 * account's hash tag) and the pool (keys under {freetier}); DailyBudget is their in-memory twin.
 * Keys live 2 days past their last write; the rules compare stored days and times only.
 * `settle_budget` replaces a hold (live or expired) by the real tokens and forgets it; 1 when
 * there was one, 0 otherwise.
 */
export const BUDGET = `
local TWO_DAYS_MS = 172800000
local function catch_up(budget, holds, expiry, now)
  local day = math.floor(now / 86400000)
  if tonumber(redis.call('HGET', budget, 'day')) ~= day then
    redis.call('DEL', holds, expiry)
    redis.call('HSET', budget, 'day', day, 'used', 0)
  end
  local expired = redis.call('ZRANGEBYSCORE', expiry, '-inf', now, 'LIMIT', 0, 1000)
  for _, id in ipairs(expired) do
    redis.call('HINCRBY', budget, 'used', -(tonumber(redis.call('HGET', holds, id)) or 0))
    redis.call('HSET', holds, id, 0)
    redis.call('ZREM', expiry, id)
  end
end
local function keep(budget, holds, expiry)
  for _, key in ipairs({budget, holds, expiry}) do redis.call('PEXPIRE', key, TWO_DAYS_MS) end
end
local function settle_budget(budget, holds, expiry, id, tokens, now)
  catch_up(budget, holds, expiry, now)
  local held = tonumber(redis.call('HGET', holds, id))
  if not held then return 0 end
  redis.call('HINCRBY', budget, 'used', tokens - held)
  redis.call('HDEL', holds, id)
  redis.call('ZREM', expiry, id)
  keep(budget, holds, expiry)
  return 1
end
`;

/** The three keys of a daily budget, in the scripts' order. */
const BUDGET_KEYS = ['budget', 'holds', 'expiry'] as const;

/**
 * Reserves `tokens` unless the limit is reached or too close; a hold id that exists answers
 * reserved again. Returns {1 reserved, 0 used up (used >= limit), -1 too small}.
 */
export const RESERVE_BUDGET = defineScript('reserve_budget', {
  keys: BUDGET_KEYS,
  args: ['id', 'tokens', 'limit', 'ttl'],
  uses: `${NOW}${BUDGET}`,
  body: `
local now = now_ms(clock)
catch_up(budget, holds, expiry, now)
if redis.call('HEXISTS', holds, id) == 1 then return {1} end
local used = tonumber(redis.call('HGET', budget, 'used'))
if used >= tonumber(limit) then return {0} end
if tonumber(limit) - used < tonumber(tokens) then return {-1} end
redis.call('HINCRBY', budget, 'used', tokens)
redis.call('HSET', holds, id, tokens)
redis.call('ZADD', expiry, now + tonumber(ttl), id)
keep(budget, holds, expiry)
return {1}
`,
});

/** Replaces the hold (live or expired) by the real tokens and forgets it. Returns {settled 0/1}. */
export const SETTLE_BUDGET = defineScript('settle_budget', {
  keys: BUDGET_KEYS,
  args: ['id', 'tokens'],
  uses: `${NOW}${BUDGET}`,
  body: `
return {settle_budget(budget, holds, expiry, id, tonumber(tokens), now_ms(clock))}
`,
});

/** The tokens used today, live reservations included (expired ones given back first). Returns {used}. */
export const USED_BUDGET = defineScript('used_budget', {
  keys: BUDGET_KEYS,
  args: [],
  uses: `${NOW}${BUDGET}`,
  body: `
catch_up(budget, holds, expiry, now_ms(clock))
return {tonumber(redis.call('HGET', budget, 'used'))}
`,
});

/** Reads the four settings of the settings hash as numbers, -1 for one never set. */
const READ_SETTINGS = `
local function read_settings(key)
  local values = redis.call('HMGET', key, 'daily_tokens', 'pool_tokens', 'paused', 'enabled')
  for i = 1, 4 do values[i] = tonumber(values[i]) or -1 end
  return values
end
`;

/** Returns {daily tokens, pool tokens, paused 0/1, enabled 0/1 (each -1 when never set), now ms}. */
export const FREE_TIER_SNAPSHOT = defineScript('free_tier_snapshot', {
  keys: ['settings'],
  args: [],
  uses: `${NOW}${READ_SETTINGS}`,
  body: `
local values = read_settings(settings)
values[5] = now_ms(clock)
return values
`,
});

/**
 * Sets each setting given ('' leaves it). Returns the settings as FREE_TIER_SNAPSHOT does,
 * without the time.
 */
export const UPDATE_FREE_TIER = defineScript('update_free_tier', {
  keys: ['settings'],
  args: ['daily_tokens', 'pool_tokens', 'paused', 'enabled'],
  uses: READ_SETTINGS,
  body: `
local given = {daily_tokens = daily_tokens, pool_tokens = pool_tokens, paused = paused, enabled = enabled}
for _, field in ipairs({'daily_tokens', 'pool_tokens', 'paused', 'enabled'}) do
  if given[field] ~= '' then redis.call('HSET', settings, field, given[field]) end
end
return read_settings(settings)
`,
});

/** SCRIPT LOAD of every script above, on each new connection. */
export async function loadFreeTierScripts(redis: RedisConnection): Promise<void> {
  await Promise.all([RESERVE_BUDGET, SETTLE_BUDGET, USED_BUDGET, FREE_TIER_SNAPSHOT, UPDATE_FREE_TIER].map((script) => script.load(redis)));
}
