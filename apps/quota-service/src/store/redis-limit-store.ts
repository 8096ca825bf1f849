import type Redis from 'ioredis';
import { minuteEndUnixSeconds, secondsToMinuteEnd } from './clock-windows';
import { ACQUIRE_PLACE, COUNT_REQUEST, GET_USAGE, RELEASE_PLACE } from './limit-scripts';
import { LimitSettings, LimitStore, MinuteCount, PlaceGrant, UsageTotals } from './limit-store';
import { LuaScript } from './lua-script';
import { accountKeys } from './redis-keys';
import { StoreUnavailableError } from './store-unavailable-error';

/** Options of a RedisLimitStore. */
export interface RedisLimitStoreOptions {
  /** Prepended to every key (REDIS_KEY_PREFIX). */
  keyPrefix: string;
  /** Tests only: a clock (ms) passed to the scripts instead of Redis TIME. */
  now?: () => number;
}

/** Reads a script reply that must be an array of at least `length` whole numbers. */
function numbers(reply: unknown, length: number): number[] {
  if (!Array.isArray(reply) || reply.length < length) throw new Error('unexpected script reply');
  return reply.map((value: unknown) => {
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isSafeInteger(n)) throw new Error('unexpected script reply');
    return n;
  });
}

/**
 * A LimitStore in Redis, shared by every replica: each operation is one Lua script, atomic per
 * account. The client decides the deadline of each command (see openRedisClient) and loads the
 * scripts (loadLimitScripts); any failure becomes StoreUnavailableError.
 */
export class RedisLimitStore implements LimitStore {
  private closing: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly settings: Readonly<LimitSettings>,
    private readonly options: RedisLimitStoreOptions,
  ) {}

  async countRequest(accountId: string): Promise<MinuteCount> {
    const keys = accountKeys(this.options.keyPrefix, accountId);
    const limit = this.settings.requestsPerMinute;
    const [allowed, count, now] = await this.run(COUNT_REQUEST, [keys.minute], [limit], 3);
    return {
      allowed: allowed === 1,
      count,
      limit,
      resetUnixSeconds: minuteEndUnixSeconds(now),
      retryAfterSeconds: secondsToMinuteEnd(now),
    };
  }

  async acquirePlace(accountId: string, requestId: string): Promise<PlaceGrant> {
    const keys = accountKeys(this.options.keyPrefix, accountId);
    const limit = this.settings.concurrentPlaces;
    const args = [requestId, limit, this.settings.placeRecoveryMs];
    const [granted] = await this.run(ACQUIRE_PLACE, [keys.places, keys.lastGrant], args, 1);
    return { granted: granted === 1, limit };
  }

  async releasePlace(accountId: string, requestId: string, tokens: number): Promise<{ released: boolean }> {
    const keys = accountKeys(this.options.keyPrefix, accountId);
    const args = [requestId, tokens, this.settings.placeRecoveryMs];
    const [released] = await this.run(RELEASE_PLACE, [keys.places, keys.lastGrant, keys.usageToday, keys.usageTotal], args, 1);
    return { released: released === 1 };
  }

  async getUsage(accountId: string): Promise<UsageTotals> {
    const keys = accountKeys(this.options.keyPrefix, accountId);
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

  private async run(script: LuaScript, keys: string[], args: (string | number)[], replyLength: number): Promise<number[]> {
    const now = this.options.now;
    const withClock = now ? [...args, Math.floor(now())] : args;
    try {
      return numbers(await script.run(this.redis, keys, withClock), replyLength);
    } catch (err) {
      throw new StoreUnavailableError(err);
    }
  }
}
