import type { RedisConnection } from '../redis/redis-connection';
import { CLAIM_LAPSED, END_LEASE, HOLD_LAPSED, RENEW_LEASES, START_LEASE } from './lease-scripts';
import { LapseHold, LeaseRecord, LeaseRef, LeaseStore } from './lease-store';

const LAPSE_HOLDS: Record<number, LapseHold> = { 0: 'gone', 1: 'held', 2: 'renewed' };
import { DeclaredScript, Named } from '../redis/lua-script';
import { RedisKeys, ShardKeys } from '../redis/redis-keys';
import { groupBy, lowestOf } from '../redis/shard-walk';
import { readDue } from '../redis/due-members';
import { ShardDueTimes } from '../redis/shard-due-times';
import { parseLeaseRecord } from '../outbox/outbox-record-json';
import { StoreUnavailableError } from '../store-unavailable-error';

/** Options of a RedisLeaseStore. */
export interface RedisLeaseStoreOptions {
  /** The key names (QUOTA_KEY_LAYOUT, REDIS_KEY_PREFIX). */
  keys: RedisKeys;
  /** Tests only: a clock (ms) passed to the scripts instead of Redis TIME. */
  now?: () => number;
  /**
   * The shortest time from its write that any lease is set to lapse in, by every replica (the
   * lease time, the claim time, the grace): a claim reads a shard again only once a lease there
   * can have lapsed, and at least this often (ShardDueTimes). Unset: every shard at every claim.
   */
  shortestLapseMs?: number;
}

/**
 * A LeaseStore in Redis, shared by every replica: a lease lives in its account's shard (beside
 * the account's keys, so that admission scripts start and end it), and each operation is one Lua
 * script per shard it concerns, its time from Redis TIME. Work on several shards is sent at once
 * (one pipelined write): a renewal of many accounts' leases, and a claim, which first reads what
 * lapsed in every shard that can have a lapsed lease (with `shortestLapseMs`: see ShardDueTimes),
 * then claims the oldest `max` of them all where they are. The client is shared; RedisLimitStore
 * closes it. Any failure becomes StoreUnavailableError.
 */
export class RedisLeaseStore implements LeaseStore {
  /** The text each claimed lease had in the store, so that holdLapsed marks it only if no renewal replaced it. */
  private readonly claimedText = new WeakMap<LeaseRecord, string>();
  /** When each shard can next have a lapsed lease. */
  private readonly lapses: ShardDueTimes;

  constructor(
    private readonly redis: RedisConnection,
    private readonly options: RedisLeaseStoreOptions,
  ) {
    this.lapses = new ShardDueTimes(options.keys.shards.length, options.now);
  }

  async start(lease: LeaseRecord, ttlMs: number): Promise<void> {
    await this.run(this.shardOf(lease), START_LEASE, {
      clock: this.clock(),
      ttl: ttlMs,
      rid: lease.requestId,
      json: JSON.stringify(lease),
    });
  }

  async renew(leases: LeaseRecord[], ttlMs: number): Promise<string[]> {
    const clock = this.clock();
    const unknown = await Promise.all(
      [...groupBy(leases, (lease) => this.shardOf(lease))].map(([shard, own]) =>
        this.run(
          shard,
          RENEW_LEASES,
          { clock, ttl: ttlMs },
          own.flatMap((lease) => [lease.requestId, JSON.stringify(lease)]),
        ),
      ),
    );
    return unknown.flat().map(String);
  }

  async end(lease: LeaseRef): Promise<void> {
    await this.run(this.shardOf(lease), END_LEASE, { rid: lease.requestId });
  }

  async claimLapsed(max: number, claimMs: number): Promise<LeaseRecord[]> {
    const clock = this.clock();
    const shards = this.options.keys.shards;
    const lapsed = await Promise.all(
      this.lapses.due().map(async (index) => {
        const sentAt = this.lapses.clock();
        const read = await this.call(() =>
          readDue(this.redis, index, shards[index].leases.lapse, 0, max, clock === '' ? undefined : clock),
        );
        this.lapses.read(index, sentAt, read, this.options.shortestLapseMs);
        return read.due;
      }),
    );
    const oldest = lowestOf(lapsed, max);
    const claimed = await Promise.all(
      [...groupBy(oldest, (lapse) => lapse.shard)].map(([shard, own]) =>
        this.run(shards[shard], CLAIM_LAPSED, { clock, max: own.length, claim: claimMs }),
      ),
    );
    // Oldest first across shards; a lease claimed that the first read did not see (lapsed since) goes last.
    const lapse = new Map(oldest.map(({ member, score }) => [member, score]));
    const lapsedAt = (lease: LeaseRecord) => lapse.get(lease.requestId) ?? Number.MAX_VALUE;
    return claimed
      .flat()
      .map((text) => {
        const lease = parseLeaseRecord(String(text));
        if (lease) this.claimedText.set(lease, String(text));
        return lease;
      })
      .filter((lease): lease is LeaseRecord => lease !== undefined)
      .sort((a, b) => lapsedAt(a) - lapsedAt(b));
  }

  async holdLapsed(lease: LeaseRecord, graceMs: number): Promise<LapseHold> {
    const claimed = this.claimedText.get(lease) ?? JSON.stringify(lease);
    const [outcome] = await this.run(this.shardOf(lease), HOLD_LAPSED, {
      clock: this.clock(),
      grace: graceMs,
      rid: lease.requestId,
      claimed,
    });
    return LAPSE_HOLDS[Number(outcome)];
  }

  private shardOf(lease: LeaseRef): ShardKeys {
    return this.options.keys.shardOfAccount(lease.accountId);
  }

  private clock(): number | '' {
    return this.options.now ? Math.floor(this.options.now()) : '';
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw new StoreUnavailableError(err);
    }
  }

  private async run<A extends string>(
    shard: ShardKeys,
    script: DeclaredScript<'lapse' | 'data', A>,
    args: Named<A, string | number>,
    rest: (string | number)[] = [],
  ): Promise<unknown[]> {
    try {
      const keys = script.keyList({ lapse: shard.leases.lapse, data: shard.leases.data });
      const reply = await script.run(this.redis, keys, script.argList(args, rest));
      if (!Array.isArray(reply)) throw new Error('unexpected script reply');
      return reply;
    } catch (err) {
      throw new StoreUnavailableError(err);
    }
  }
}
