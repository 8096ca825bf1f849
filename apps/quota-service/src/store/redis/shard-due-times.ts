import { performance } from 'node:perf_hooks';
import type { DueRead } from './due-members';

/**
 * When each shard of a time-scored index (leases by lapse time, credit lines by last activity)
 * can next have a member due, so that a background pass asks only the shards that can have work.
 *
 * It rests on how the scripts score members: each score is written as the store's time then plus
 * at least some span (a lease lapses a lease time, a claim time or a grace after its write; a line
 * is idle an idle time after its last admission), and never to less. So a shard read at store time
 * T whose first member not yet due is due at N has nothing due before min(N, T + that span): every
 * member there at T is due at N or later, and every one written after T at T + the span or later.
 * `quietMs` passed to `read` (at most that span) bounds how long a shard goes unread, which also
 * bounds how late a member the argument misses is found: a failover to a replica with an older
 * state, a jump of Redis's clock, another replica set to a shorter span.
 *
 * Times here are this clock's (monotonic, or the test clock); the store's time of a read is
 * mapped to it from when the read was sent, which is no later than when Redis ran it, so a shard
 * is asked early rather than late.
 */
export class ShardDueTimes {
  /** By shard index: when it is next worth reading (this clock); -Infinity: at the next pass. */
  private readonly dueAt: number[];

  constructor(
    shards: number,
    readonly clock: () => number = () => performance.now(),
  ) {
    this.dueAt = new Array<number>(shards).fill(-Infinity);
  }

  /** The latest time `due` read, to notice a clock set back. */
  private lastNow = -Infinity;

  /** The indexes of the shards that can have a member due now (all of them when the clock went back: a test's). */
  due(): number[] {
    const now = this.clock();
    if (now < this.lastNow) this.reset();
    this.lastNow = now;
    const due: number[] = [];
    this.dueAt.forEach((at, i) => {
      if (at <= now) due.push(i);
    });
    return due;
  }

  /**
   * Records a read of shard `shard` sent at `sentAt` (this clock): a shard with a member due
   * (taken or not) is read again at the next pass; else once its next member is due, and within
   * `quietMs`. Without `quietMs` every pass reads it.
   */
  read(shard: number, sentAt: number, read: DueRead, quietMs: number | undefined): void {
    if (quietMs === undefined || read.due.length > 0) {
      this.dueAt[shard] = -Infinity;
      return;
    }
    const untilNext = read.nextDueMs === undefined ? quietMs : Math.min(quietMs, read.nextDueMs - read.storeNowMs);
    this.dueAt[shard] = sentAt + Math.max(0, untilNext);
  }

  /** Every shard read at the next pass. */
  reset(): void {
    this.dueAt.fill(-Infinity);
  }
}
