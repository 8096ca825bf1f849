import type { RedisConnection } from '../redis/redis-connection';
import { minuteCountAt } from '../clock-windows';
import { ACQUIRE_PLACE, COUNT_REQUEST, FINISH_REQUEST, GET_USAGE, RELEASE_PLACE } from './limit-scripts';
import { FINISH_MEMORY_MS, FinishedRequest, LimitSettings, LimitStore, MinuteCount, PlaceGrant, UsageTotals } from './limit-store';
import { LuaScript } from '../redis/lua-script';
import { RedisKeys } from '../redis/redis-keys';
import { runScript } from '../redis/run-script';

/** Options of a RedisLimitStore. */
export interface RedisLimitStoreOptions {
  /** The key names (QUOTA_KEY_LAYOUT, REDIS_KEY_PREFIX). */
  keys: RedisKeys;
  /** Tests only: a clock (ms) passed to the scripts instead of Redis TIME. */
  now?: () => number;
}

/**
 * A LimitStore in Redis, shared by every replica: each operation is one Lua script, atomic per
 * account. The client decides the deadline of each command (see openRedisClient) and loads the
 * scripts (loadLimitScripts); any failure becomes StoreUnavailableError.
 */
export class RedisLimitStore implements LimitStore {
  private closing: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisConnection,
    private readonly settings: Readonly<LimitSettings>,
    private readonly options: RedisLimitStoreOptions,
  ) {}

  async countRequest(accountId: string): Promise<MinuteCount> {
    const keys = this.options.keys.account(accountId);
    const limit = this.settings.requestsPerMinute;
    const [allowed, count, now] = await this.run(COUNT_REQUEST, [keys.minute], [limit], 3);
    return minuteCountAt(allowed === 1, count, limit, now);
  }

  async acquirePlace(accountId: string, requestId: string): Promise<PlaceGrant> {
    const keys = this.options.keys.account(accountId);
    const limit = this.settings.concurrentPlaces;
    const args = [requestId, limit, this.settings.placeRecoveryMs];
    const [granted] = await this.run(ACQUIRE_PLACE, [keys.places, keys.lastGrant], args, 1);
    return { granted: granted === 1, limit };
  }

  async releasePlace(accountId: string, requestId: string, tokens: number): Promise<{ released: boolean }> {
    const keys = this.options.keys.account(accountId);
    const args = [requestId, tokens, this.settings.placeRecoveryMs];
    const [released] = await this.run(RELEASE_PLACE, [keys.places, keys.lastGrant, keys.usageToday, keys.usageTotal], args, 1);
    return { released: released === 1 };
  }

  async finishRequest(accountId: string, requestId: string, tokens: number): Promise<FinishedRequest> {
    const keys = this.options.keys.account(accountId);
    const args = [requestId, tokens, this.settings.placeRecoveryMs, FINISH_MEMORY_MS];
    const scriptKeys = [keys.places, keys.lastGrant, keys.usageToday, keys.usageTotal, keys.finished];
    const [released, repeated] = await this.run(FINISH_REQUEST, scriptKeys, args, 2);
    return { released: released === 1, repeated: repeated === 1 };
  }

  async getUsage(accountId: string): Promise<UsageTotals> {
    const keys = this.options.keys.account(accountId);
    const [todayTokens, totalTokens] = await this.run(GET_USAGE, [keys.usageToday, keys.usageTotal], [], 2);
    return { todayTokens, totalTokens };
  }

  /** QUIT when connected, else (or when QUIT fails) a hard disconnect. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= this.quitOrDrop();
    return this.closing;
  }

  private async quitOrDrop(): Promise<void> {
    if (this.redis.status === 'ready') {
      try {
        await this.redis.quit();
        return;
      } catch {
        // Not answered in time: drop the connection below.
      }
    }
    if (this.redis.status !== 'end') this.redis.disconnect();
  }

  private run(script: LuaScript, keys: string[], args: (string | number)[], replyLength: number): Promise<number[]> {
    return runScript(this.redis, script, keys, args, replyLength, this.options.now);
  }
}
