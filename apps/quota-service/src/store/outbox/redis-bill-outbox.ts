import type { RedisConnection } from '../redis/redis-connection';
import { ACK_DELIVERED } from './outbox-scripts';
import { RedisKeys, ShardKeys } from '../redis/redis-keys';
import { parseOutboxRecord } from './outbox-record-json';
import { groupBy } from '../redis/shard-walk';
import { ClaimedRecord, OutboxBacklog, OutboxRecord, BillOutbox } from './bill-outbox';
import { StoreUnavailableError } from '../store-unavailable-error';

/** Options of a RedisBillOutbox. */
export interface RedisBillOutboxOptions {
  /** The key names (QUOTA_KEY_LAYOUT, REDIS_KEY_PREFIX): one stream per shard. */
  keys: RedisKeys;
  /** This replica's name in the consumer groups; unique per process. */
  consumer: string;
  /** A record another consumer was handed this long ago without acknowledging it is taken over. */
  claimIdleMs: number;
}

/** What a script that appends to an account's outbox tells the outbox, and what it asks of it (RedisAdmissionStore's `outboxAppends`). */
export interface OutboxAppends {
  /** A script that can append to the account's shard runs (told before it is sent and after it answers). */
  noteAppend(accountId: string): void;
  /**
   * Whether this replica acknowledged the request's final bill lately (its delivery done with:
   * applied, set aside or dropped), which cleared its unbilled mark: its bill stands applied,
   * unless a bill of it was queued again since (told by `noteBill` before its script is sent). A
   * bill by estimate is never answered from here (see claimedBills).
   */
  acknowledged(requestId: string): boolean;
  /** A script that can queue a bill of the request (a finish: a real bill correcting an estimate, or one finished again) runs. */
  noteBill(requestId: string): void;
}

/**
 * The request ids of the bills acknowledged last that the outbox remembers: about half a minute
 * of bills at 500 paid requests/s, beyond the 5 s between an edge's renewals of a final bill.
 */
const ACKNOWLEDGED_KEPT = 16_384;

/** The field of a stream entry that holds the record's JSON (scripts that append to the stream write it too). */
export const OUTBOX_FIELD = 'r';

/** The consumer group every quota-service replica reads each shard's stream in. */
export const BILLING_GROUP = 'billing';

type StreamEntry = [id: string, fields: string[] | null];

/** An entry of one shard's stream. */
interface ShardEntry {
  shard: ShardKeys;
  entry: StreamEntry;
}

/** The record of an entry, or undefined when the entry is gone or unreadable. */
function recordOf([, fields]: StreamEntry): OutboxRecord | undefined {
  return fields && fields[0] === OUTBOX_FIELD ? parseOutboxRecord(fields[1]) : undefined;
}

const isNoGroup = (err: unknown) => err instanceof Error && err.message.startsWith('NOGROUP');

/** Stream entry ids (`ms-seq`) in the order Redis gave them, across streams: by time, then sequence. */
function byEntryId(a: ShardEntry, b: ShardEntry): number {
  const [aMs, aSeq] = a.entry[0].split('-').map(Number);
  const [bMs, bSeq] = b.entry[0].split('-').map(Number);
  return aMs - bMs || aSeq - bSeq;
}

/**
 * A BillOutbox on Redis streams, one per shard (beside the accounts whose scripts append to it),
 * each with one consumer group shared by every replica: each replica reads under its own consumer
 * name, a record stays pending until acknowledged, and records a dead replica left pending are
 * taken over after `claimIdleMs` (XAUTOCLAIM). Acknowledged records are deleted from the stream, so
 * a stream's length is what waits in it. A claim first asks the shards how much waits (not those
 * this replica appended to since, which have something), then reads only the shards with
 * something, `max` shared among them; each step is one command per shard, all
 * sent at once (one pipelined write). Entries that cannot be read (not written by this code) are
 * acknowledged and skipped. The client is shared; RedisLimitStore closes it.
 *
 * Which shards a claim asks: those this replica appended to since it last looked (`append`, and
 * the scripts that tell `noteAppend`), and those whose last look found entries, until a look finds
 * none; every `claimIdleMs / 2` (or at once while the last look for orphans filled its share) all
 * of them, when it also takes over what dead consumers left pending. So an idle outbox costs one
 * command per shard per half claim time, and a bill is still delivered by the replica that
 * appended it at its next pass; what only another replica appended is found by this one's next look
 * at all shards (that replica delivers it itself while it lives; one that died before reading it
 * leaves it to that look, sooner than what it left pending, which waits `claimIdleMs`).
 */
export class RedisBillOutbox implements BillOutbox, OutboxAppends {
  /**
   * The bills this consumer was handed and has not acknowledged: claimed id -> its request, whose
   * unbilled mark ack clears, and whether the bill is final: a bill by estimate (the reaper's) is
   * not, as the real bill that corrects it may be queued through another replica, whose noteBill
   * this one never hears of.
   */
  private readonly claimedBills = new Map<string, { accountId: string; requestId: string; final: boolean }>();
  /** Ids handed out by claims and not acknowledged: while any are, a claim reads this consumer's pending entries first. */
  private readonly handedOut = new Set<string>();
  /** The last pending read filled its share: more of this consumer's entries may be pending. */
  private morePending = false;
  /** When to look next at every shard, and for entries that other (dead) consumers left pending. */
  private nextLookAllMs = 0;
  /** Shards (by index) this replica appended to, or ran a script that can, since a claim last asked them. */
  private readonly appended = new Set<number>();
  /** Shards whose stream had entries at their last look (waiting, or pending with some consumer). */
  private readonly notEmpty = new Set<number>();
  /** The request ids of the bills acknowledged last, oldest first (at most ACKNOWLEDGED_KEPT). */
  private readonly acknowledgedBills = new Set<string>();

  constructor(
    private readonly redis: RedisConnection,
    private readonly options: RedisBillOutboxOptions,
  ) {}

  async append(record: OutboxRecord): Promise<void> {
    const shard = this.options.keys.shardOfAccount(record.accountId);
    this.appended.add(shard.index);
    try {
      await this.call(() => this.redis.xadd(shard.outbox, '*', OUTBOX_FIELD, JSON.stringify(record)));
    } finally {
      this.appended.add(shard.index);
    }
  }

  noteAppend(accountId: string): void {
    this.appended.add(this.options.keys.shardOfAccount(accountId).index);
  }

  acknowledged(requestId: string): boolean {
    return this.acknowledgedBills.has(requestId);
  }

  noteBill(requestId: string): void {
    this.acknowledgedBills.delete(requestId);
  }

  private rememberAcknowledged(requestId: string): void {
    this.acknowledgedBills.delete(requestId);
    this.acknowledgedBills.add(requestId);
    if (this.acknowledgedBills.size > ACKNOWLEDGED_KEPT)
      this.acknowledgedBills.delete(this.acknowledgedBills.values().next().value as string);
  }

  async claim(max: number): Promise<ClaimedRecord[]> {
    const lookAll = Date.now() >= this.nextLookAllMs;
    const { shards, appended } = this.shardsToAsk(lookAll);
    if (shards.length === 0) return [];
    const entries = await this.call(async () => {
      // A shard this replica appended to has records (unless another replica took them): read without asking its length.
      const lengths = await Promise.all(
        shards.map((shard) =>
          appended.has(shard.index) ? undefined : this.redis.xlen(shard.outbox).catch((err: unknown) => err as Error),
        ),
      );
      // A shard whose length is unknown is asked again at the next claim.
      shards.forEach((shard, i) => (lengths[i] === 0 ? this.notEmpty.delete(shard.index) : this.notEmpty.add(shard.index)));
      const failed = lengths.find((length): length is Error => length instanceof Error);
      if (failed) throw failed;
      const waiting = shards.filter((_, i) => lengths[i] !== 0);
      if (waiting.length > 0) return this.pendingOrNew(waiting, max, lookAll);
      if (lookAll) this.nextLookAllMs = Date.now() + this.options.claimIdleMs / 2;
      return [];
    });
    const claimed: ClaimedRecord[] = [];
    const unreadable: string[] = [];
    for (const { shard, entry } of entries) {
      const id = `${shard.index}/${entry[0]}`;
      const record = recordOf(entry);
      if (record) {
        claimed.push({ id, record });
        this.handedOut.add(id);
      } else unreadable.push(id);
      if (record?.kind === 'bill')
        this.claimedBills.set(id, { accountId: record.accountId, requestId: record.requestId, final: !record.usageEstimated });
    }
    await this.ack(unreadable);
    return claimed;
  }

  /**
   * Acknowledges and deletes the ids (`<shard>/<entry id>`, as claimed) and clears the unbilled
   * marks of the bills among them: one script per shard (ACK_DELIVERED), all sent at once.
   */
  async ack(ids: string[]): Promise<void> {
    const entries = ids
      .map((id) => [id, ...id.split('/')])
      .filter(([, index, entryId]) => this.options.keys.shards[Number(index)] && entryId);
    await this.call(() =>
      Promise.all(
        [...groupBy(entries, ([, index]) => this.options.keys.shards[Number(index)])].map(async ([shard, own]) => {
          const entryIds = own.map(([, , entryId]) => entryId);
          const bills = [
            ...groupBy(
              own.flatMap(([id]) => this.claimedBills.get(id) ?? []),
              (bill) => bill.accountId,
            ),
          ];
          const unbilled = bills.map(([accountId]) => this.options.keys.account(accountId).unbilled);
          const items = [...entryIds, ...bills.flatMap(([, billed]) => [billed.length, ...billed.map((bill) => bill.requestId)])];
          const keys = ACK_DELIVERED.keyList({ outbox: shard.outbox }, unbilled);
          await ACK_DELIVERED.run(this.redis, keys, ACK_DELIVERED.argList({ group: BILLING_GROUP, count: entryIds.length }, items));
          for (const [, billed] of bills) for (const bill of billed) if (bill.final) this.rememberAcknowledged(bill.requestId);
          for (const [id] of own) {
            this.claimedBills.delete(id);
            this.handedOut.delete(id);
          }
        }),
      ),
    );
  }

  /**
   * Entries left in the streams are the ones not yet delivered (delivered ones are deleted); ids
   * are their append times. The oldest entry is read only of the streams that have one.
   */
  async backlog(): Promise<OutboxBacklog> {
    const shards = this.options.keys.shards;
    const { lengths, oldest } = await this.call(async () => {
      const lengths = await Promise.all(shards.map((shard) => this.redis.xlen(shard.outbox)));
      const waiting = shards.filter((_, i) => lengths[i] > 0);
      const oldest = await Promise.all(waiting.map((shard) => this.redis.xrange(shard.outbox, '-', '+', 'COUNT', 1)));
      return { lengths, oldest };
    });
    const records = lengths.reduce((sum, length) => sum + length, 0);
    let appendedMs = Infinity;
    for (const first of oldest) if (first.length > 0) appendedMs = Math.min(appendedMs, Number(first[0][0].split('-')[0]));
    return { records, oldestAgeSeconds: appendedMs === Infinity ? 0 : Math.max(0, (Date.now() - appendedMs) / 1000) };
  }

  /**
   * Every shard when `all`, else those appended to since asked, and those that had entries (see
   * the class comment); and which of them were appended to.
   */
  private shardsToAsk(all: boolean): { shards: readonly ShardKeys[]; appended: ReadonlySet<number> } {
    const appended = new Set(this.appended);
    const shards = all
      ? this.options.keys.shards
      : this.options.keys.shards.filter((s) => appended.has(s.index) || this.notEmpty.has(s.index));
    // Cleared before anything is asked: an append told after this is asked at the next claim.
    this.appended.clear();
    return { shards, appended };
  }

  /**
   * This consumer's pending entries (only while some it handed out were not acknowledged: a
   * delivery failed), then those others left too long (when `orphans`: every claimIdleMs / 2, or
   * at once while the last look filled its share), then new ones: each step over every shard at
   * once, each group oldest first.
   */
  private async pendingOrNew(shards: ShardKeys[], max: number, orphans: boolean): Promise<ShardEntry[]> {
    const entries: ShardEntry[] = [];
    if (this.handedOut.size > 0 || this.morePending) {
      this.handedOut.clear();
      entries.push(...(await this.fromEach(shards, max, (shard, count) => this.read(shard, count, '0'))));
      this.morePending = entries.length >= max;
    }
    if (entries.length < max && orphans) {
      const room = max - entries.length;
      const orphans = await this.fromEach(shards, room, async (shard, count) => {
        const [, orphaned] = (await this.redis.xautoclaim(
          shard.outbox,
          BILLING_GROUP,
          this.options.consumer,
          this.options.claimIdleMs,
          '0-0',
          'COUNT',
          count,
        )) as [string, StreamEntry[]];
        return orphaned;
      });
      if (orphans.length < room) this.nextLookAllMs = Date.now() + this.options.claimIdleMs / 2;
      entries.push(...orphans);
    }
    if (entries.length < max)
      entries.push(...(await this.fromEach(shards, max - entries.length, (shard, count) => this.read(shard, count, '>'))));
    // What a step took past `max` stays this consumer's pending, handed out by the next claim.
    if (entries.length > max) this.morePending = true;
    return entries.slice(0, max);
  }

  /**
   * Runs `take` on every shard at once, each asked for its share of `room`, and returns the
   * entries oldest first. A shard without the consumer group (its stream new, or deleted) gets
   * it first.
   */
  private async fromEach(
    shards: ShardKeys[],
    room: number,
    take: (shard: ShardKeys, count: number) => Promise<StreamEntry[]>,
  ): Promise<ShardEntry[]> {
    const count = Math.ceil(room / shards.length);
    const taken = await Promise.all(
      shards.map(async (shard) => (await this.withGroup(shard, () => take(shard, count))).map((entry) => ({ shard, entry }))),
    );
    return taken.flat().sort(byEntryId);
  }

  private async read(shard: ShardKeys, max: number, from: '0' | '>'): Promise<StreamEntry[]> {
    const reply = (await this.redis.xreadgroup(
      'GROUP',
      BILLING_GROUP,
      this.options.consumer,
      'COUNT',
      max,
      'STREAMS',
      shard.outbox,
      from,
    )) as [string, StreamEntry[]][] | null;
    return reply?.[0]?.[1] ?? [];
  }

  /** Runs `work`, creating the shard's group (and stream) first when Redis answers NOGROUP. */
  private async withGroup<T>(shard: ShardKeys, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (!isNoGroup(err)) throw err;
      await this.redis.xgroup('CREATE', shard.outbox, BILLING_GROUP, '0', 'MKSTREAM').catch((e: unknown) => {
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
