import type Redis from 'ioredis';
import { CLAIM_LAPSED, END_LEASE, RENEW_LEASES, START_LEASE } from './lease-scripts';
import { LeaseRecord, LeaseRef, LeaseStore } from './lease-store';
import { LuaScript } from './lua-script';
import { LeaseKeys, leaseKeys } from './redis-keys';
import { parseLeaseRecord } from './settle-record-json';
import { StoreUnavailableError } from './store-unavailable-error';

/** Options of a RedisLeaseStore. */
export interface RedisLeaseStoreOptions {
  /** Prepended to every key (REDIS_KEY_PREFIX). */
  keyPrefix: string;
  /** Tests only: a clock (ms) passed to the scripts instead of Redis TIME. */
  now?: () => number;
}

/**
 * A LeaseStore in Redis, shared by every replica: each operation is one Lua script on the
 * `{leases}` slot, its time from Redis TIME. The client is shared; RedisLimitStore closes it.
 * Any failure becomes StoreUnavailableError.
 */
export class RedisLeaseStore implements LeaseStore {
  private readonly keys: LeaseKeys;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisLeaseStoreOptions,
  ) {
    this.keys = leaseKeys(options.keyPrefix);
  }

  async start(lease: LeaseRecord, ttlMs: number): Promise<void> {
    await this.run(START_LEASE, [this.clock(), ttlMs, lease.requestId, JSON.stringify(lease)]);
  }

  async renew(leases: LeaseRecord[], ttlMs: number): Promise<string[]> {
    if (leases.length === 0) return [];
    const pairs = leases.flatMap((lease) => [lease.requestId, JSON.stringify(lease)]);
    return (await this.run(RENEW_LEASES, [this.clock(), ttlMs, ...pairs])).map(String);
  }

  async end(lease: LeaseRef): Promise<void> {
    await this.run(END_LEASE, [lease.requestId]);
  }

  async claimLapsed(max: number, claimMs: number): Promise<LeaseRecord[]> {
    const claimed = await this.run(CLAIM_LAPSED, [this.clock(), max, claimMs]);
    return claimed.map((text) => parseLeaseRecord(String(text))).filter((lease): lease is LeaseRecord => lease !== undefined);
  }

  private clock(): number | '' {
    return this.options.now ? Math.floor(this.options.now()) : '';
  }

  private async run(script: LuaScript, args: (string | number)[]): Promise<unknown[]> {
    try {
      const reply = await script.run(this.redis, [this.keys.lapse, this.keys.data], args);
      if (!Array.isArray(reply)) throw new Error('unexpected script reply');
      return reply;
    } catch (err) {
      throw new StoreUnavailableError(err);
    }
  }
}
