import type Redis from 'ioredis';
import { settleOutboxKey } from './redis-keys';
import { parseOutboxRecord } from './settle-record-json';
import { ClaimedSettle, OutboxBacklog, OutboxRecord, SettleOutbox } from './settle-outbox';
import { StoreUnavailableError } from './store-unavailable-error';

/** Options of a RedisSettleOutbox. */
export interface RedisSettleOutboxOptions {
  /** Prepended to the stream's key (REDIS_KEY_PREFIX). */
  keyPrefix: string;
  /** This replica's name in the consumer group; unique per process. */
  consumer: string;
  /** A record another consumer was handed this long ago without acknowledging it is taken over. */
  claimIdleMs: number;
}

/** The field of a stream entry that holds the record's JSON (scripts that append to the stream write it too). */
export const OUTBOX_FIELD = 'r';

/** The consumer group every quota-service replica reads the stream in. */
export const SETTLE_GROUP = 'billing';

type StreamEntry = [id: string, fields: string[] | null];

/** The record of an entry, or undefined when the entry is gone or unreadable. */
function recordOf([, fields]: StreamEntry): OutboxRecord | undefined {
  return fields && fields[0] === OUTBOX_FIELD ? parseOutboxRecord(fields[1]) : undefined;
}

const isNoGroup = (err: unknown) => err instanceof Error && err.message.startsWith('NOGROUP');

/**
 * A SettleOutbox on a Redis stream with one consumer group, shared by every replica: each
 * replica reads under its own consumer name, a record stays pending until acknowledged, and
 * records a dead replica left pending are taken over after `claimIdleMs` (XAUTOCLAIM).
 * Acknowledged records are deleted from the stream. Entries that cannot be read (not written
 * by this code) are acknowledged and skipped. The client is shared; RedisLimitStore closes it.
 */
export class RedisSettleOutbox implements SettleOutbox {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisSettleOutboxOptions,
  ) {
    this.key = settleOutboxKey(options.keyPrefix);
  }

  async append(record: OutboxRecord): Promise<void> {
    await this.call(() => this.redis.xadd(this.key, '*', OUTBOX_FIELD, JSON.stringify(record)));
  }

  async claim(max: number): Promise<ClaimedSettle[]> {
    const entries = await this.call(() => this.withGroup(() => this.pendingOrNew(max)));
    const claimed: ClaimedSettle[] = [];
    const unreadable: string[] = [];
    for (const entry of entries) {
      const record = recordOf(entry);
      if (record) claimed.push({ id: entry[0], record });
      else unreadable.push(entry[0]);
    }
    await this.ack(unreadable);
    return claimed;
  }

  async ack(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.call(async () => {
      await this.redis.xack(this.key, SETTLE_GROUP, ...ids);
      await this.redis.xdel(this.key, ...ids);
    });
  }

  /** Entries left in the stream are the ones not yet delivered (delivered ones are deleted); ids are their append times. */
  async backlog(): Promise<OutboxBacklog> {
    const [records, oldest] = await this.call(() => Promise.all([this.redis.xlen(this.key), this.redis.xrange(this.key, '-', '+', 'COUNT', 1)]));
    const appendedMs = oldest.length > 0 ? Number(oldest[0][0].split('-')[0]) : undefined;
    return { records, oldestAgeSeconds: appendedMs === undefined ? 0 : Math.max(0, (Date.now() - appendedMs) / 1000) };
  }

  private async pendingOrNew(max: number): Promise<StreamEntry[]> {
    const entries = await this.read(max, '0');
    if (entries.length < max) {
      const room = max - entries.length;
      const [, orphaned] = (await this.redis.xautoclaim(this.key, SETTLE_GROUP, this.options.consumer, this.options.claimIdleMs, '0-0', 'COUNT', room)) as [
        string,
        StreamEntry[],
      ];
      entries.push(...orphaned);
    }
    if (entries.length < max) entries.push(...(await this.read(max - entries.length, '>')));
    return entries;
  }

  private async read(max: number, from: '0' | '>'): Promise<StreamEntry[]> {
    const reply = (await this.redis.xreadgroup('GROUP', SETTLE_GROUP, this.options.consumer, 'COUNT', max, 'STREAMS', this.key, from)) as
      | [string, StreamEntry[]][]
      | null;
    return reply?.[0]?.[1] ?? [];
  }

  /** Runs `work`, creating the group (and the stream) first when Redis answers NOGROUP. */
  private async withGroup<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (!isNoGroup(err)) throw err;
      await this.redis.xgroup('CREATE', this.key, SETTLE_GROUP, '0', 'MKSTREAM').catch((e: unknown) => {
        if (!(e instanceof Error && e.message.startsWith('BUSYGROUP'))) throw e;
      });
      return work();
    }
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw new StoreUnavailableError(err);
    }
  }
}
