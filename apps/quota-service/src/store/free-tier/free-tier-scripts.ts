import type { RedisConnection } from '../redis/redis-connection';
import { NOW } from '../redis/lua-clock';
import { LuaScript } from '../redis/lua-script';

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

/**
 * KEYS: budget, holds, expiry. ARGV: hold id, tokens, limit, ttl ms, [now ms].
 * Reserves `tokens` unless the limit is reached or too close; a hold id that exists answers
 * reserved again. Returns {1 reserved, 0 used up (used >= limit), -1 too small}.
 */
export const RESERVE_BUDGET = new LuaScript(
  'reserve_budget',
  `${NOW}${BUDGET}
local now = now_ms(ARGV[5])
catch_up(KEYS[1], KEYS[2], KEYS[3], now)
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return {1} end
local tokens = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local used = tonumber(redis.call('HGET', KEYS[1], 'used'))
if used >= limit then return {0} end
if limit - used < tokens then return {-1} end
redis.call('HINCRBY', KEYS[1], 'used', tokens)
redis.call('HSET', KEYS[2], ARGV[1], tokens)
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[4]), ARGV[1])
keep(KEYS[1], KEYS[2], KEYS[3])
return {1}
`,
);

/**
 * KEYS: budget, holds, expiry. ARGV: hold id, tokens, [now ms].
 * Replaces the hold (live or expired) by the real tokens and forgets it. Returns {settled 0/1}.
 */
export const SETTLE_BUDGET = new LuaScript(
  'settle_budget',
  `${NOW}${BUDGET}
return {settle_budget(KEYS[1], KEYS[2], KEYS[3], ARGV[1], tonumber(ARGV[2]), now_ms(ARGV[3]))}
`,
);

/**
 * KEYS: budget, holds, expiry. ARGV: [now ms].
 * The tokens used today, live reservations included (expired ones given back first). Returns {used}.
 */
export const USED_BUDGET = new LuaScript(
  'used_budget',
  `${NOW}${BUDGET}
catch_up(KEYS[1], KEYS[2], KEYS[3], now_ms(ARGV[1]))
return {tonumber(redis.call('HGET', KEYS[1], 'used'))}
`,
);

/** Reads the four settings of the settings hash as numbers, -1 for one never set. */
const READ_SETTINGS = `
local function read_settings(key)
  local values = redis.call('HMGET', key, 'daily_tokens', 'pool_tokens', 'paused', 'enabled')
  for i = 1, 4 do values[i] = tonumber(values[i]) or -1 end
  return values
end
`;

/**
 * KEYS: settings hash. ARGV: [now ms].
 * Returns {daily tokens, pool tokens, paused 0/1, enabled 0/1 (each -1 when never set), now ms}.
 */
export const FREE_TIER_SNAPSHOT = new LuaScript(
  'free_tier_snapshot',
  `${NOW}${READ_SETTINGS}
local values = read_settings(KEYS[1])
values[5] = now_ms(ARGV[1])
return values
`,
);

/**
 * KEYS: settings hash. ARGV: daily tokens, pool tokens, paused 0/1, enabled 0/1 (each '' to leave it).
 * Returns the settings as FREE_TIER_SNAPSHOT does, without the time.
 */
export const UPDATE_FREE_TIER = new LuaScript(
  'update_free_tier',
  `${READ_SETTINGS}
local fields = {'daily_tokens', 'pool_tokens', 'paused', 'enabled'}
for i = 1, 4 do
  if ARGV[i] ~= '' then redis.call('HSET', KEYS[1], fields[i], ARGV[i]) end
end
return read_settings(KEYS[1])
`,
);

/** SCRIPT LOAD of every script above, on each new connection. */
export async function loadFreeTierScripts(redis: RedisConnection): Promise<void> {
  await Promise.all([RESERVE_BUDGET, SETTLE_BUDGET, USED_BUDGET, FREE_TIER_SNAPSHOT, UPDATE_FREE_TIER].map((script) => script.load(redis)));
}
