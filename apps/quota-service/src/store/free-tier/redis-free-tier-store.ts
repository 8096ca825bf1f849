import type { RedisConnection } from '../redis/redis-connection';
import { FREE_TIER_SNAPSHOT, RESERVE_BUDGET, SETTLE_BUDGET, UPDATE_FREE_TIER, USED_BUDGET } from './free-tier-scripts';
import { FreeReservation, FreeTierSettings, FreeTierSnapshot, FreeTierStore, ReserveOutcome } from './free-tier-store';
import { DeclaredScript, Named } from '../redis/lua-script';
import { poolHoldId } from './pool-hold-id';
import { RedisKeys } from '../redis/redis-keys';
import { runScript } from '../redis/run-script';

/** The keys of a daily budget (free-tier-scripts.ts): the account's allowance or the pool. */
type BudgetKeys = Named<'budget' | 'holds' | 'expiry', string>;

/** Options of a RedisFreeTierStore. */
export interface RedisFreeTierStoreOptions {
  /** The key names (QUOTA_KEY_LAYOUT, REDIS_KEY_PREFIX). */
  keys: RedisKeys;
  /** Tests only: a clock (ms) passed to the scripts instead of Redis TIME. */
  now?: () => number;
}

/** The settings as the scripts return them (-1: never set, so the default applies). */
function toSettings(values: number[], defaults: Readonly<FreeTierSettings>): FreeTierSettings {
  const [daily, pool, paused, enabled] = values;
  return {
    dailyTokens: daily < 0 ? defaults.dailyTokens : daily,
    poolTokens: pool < 0 ? defaults.poolTokens : pool,
    paused: paused < 0 ? defaults.paused : paused === 1,
    enabled: enabled < 0 ? defaults.enabled : enabled === 1,
  };
}

const flag = (value: boolean | undefined): string => (value === undefined ? '' : value ? '1' : '0');

/**
 * A FreeTierStore in Redis, shared by every replica. An account's allowance lives with the
 * account's keys (store/redis/redis-keys.ts) and the pool and settings under {freetier}, so that each script
 * touches one Redis Cluster slot: reserving is one atomic script on the allowance, then one on
 * the pool, and a pool refusal gives the allowance back (should that last step fail, the
 * reservation expires instead). Neither budget is ever taken past its limit. The client is
 * shared with the RedisLimitStore, which closes it.
 */
export class RedisFreeTierStore implements FreeTierStore {
  private readonly pool: BudgetKeys;

  constructor(
    private readonly redis: RedisConnection,
    private readonly defaults: Readonly<FreeTierSettings>,
    private readonly options: RedisFreeTierStoreOptions,
  ) {
    const pool = options.keys.freeTier;
    this.pool = { budget: pool.poolBudget, holds: pool.poolHolds, expiry: pool.poolExpiry };
  }

  async snapshot(): Promise<FreeTierSnapshot> {
    const values = await this.run(FREE_TIER_SNAPSHOT, { settings: this.options.keys.freeTier.settings }, {}, 5);
    return { settings: toSettings(values, this.defaults), nowMs: values[4] };
  }

  async updateSettings(change: Partial<FreeTierSettings>): Promise<FreeTierSettings> {
    const args = {
      daily_tokens: change.dailyTokens ?? '',
      pool_tokens: change.poolTokens ?? '',
      paused: flag(change.paused),
      enabled: flag(change.enabled),
    };
    return toSettings(await this.run(UPDATE_FREE_TIER, { settings: this.options.keys.freeTier.settings }, args, 4), this.defaults);
  }

  async reserve(r: FreeReservation): Promise<ReserveOutcome> {
    const allowance = this.allowance(r.accountId);
    const [answer] = await this.run(
      RESERVE_BUDGET,
      allowance,
      { id: r.requestId, tokens: r.tokens, limit: r.dailyTokens, ttl: r.ttlMs },
      1,
    );
    if (answer === 0) return 'allowance-used-up';
    if (answer < 0) return 'allowance-too-small';
    const [pooled] = await this.run(
      RESERVE_BUDGET,
      this.pool,
      { id: poolHoldId(r.accountId, r.requestId), tokens: r.tokens, limit: r.poolTokens, ttl: r.ttlMs },
      1,
    );
    if (pooled === 1) return 'reserved';
    await this.run(SETTLE_BUDGET, allowance, { id: r.requestId, tokens: 0 }, 1);
    return 'pool-exhausted';
  }

  async settle(accountId: string, requestId: string, tokens: number): Promise<boolean> {
    const [settled] = await this.run(SETTLE_BUDGET, this.allowance(accountId), { id: requestId, tokens }, 1);
    const [pooled] = await this.run(SETTLE_BUDGET, this.pool, { id: poolHoldId(accountId, requestId), tokens }, 1);
    return settled === 1 || pooled === 1;
  }

  async allowanceUsed(accountId: string): Promise<number> {
    const [used] = await this.run(USED_BUDGET, this.allowance(accountId), {}, 1);
    return used;
  }

  private allowance(accountId: string): BudgetKeys {
    const keys = this.options.keys.account(accountId);
    return { budget: keys.freeBudget, holds: keys.freeHolds, expiry: keys.freeExpiry };
  }

  private run<K extends string, A extends string>(
    script: DeclaredScript<K, A>,
    keys: Named<K, string>,
    args: Named<A, string | number>,
    replyLength: number,
  ): Promise<number[]> {
    return runScript(this.redis, script, keys, args, replyLength, this.options.now);
  }
}
