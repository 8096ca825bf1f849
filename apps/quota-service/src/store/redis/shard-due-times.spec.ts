import { DueRead } from './due-members';
import { ShardDueTimes } from './shard-due-times';

const nothingDue = (storeNowMs: number, nextDueMs?: number): DueRead => ({ storeNowMs, due: [], nextDueMs });

describe('ShardDueTimes', () => {
  let nowMs = 1000;
  let times: ShardDueTimes;
  beforeEach(() => {
    nowMs = 1000;
    times = new ShardDueTimes(3, () => nowMs);
  });

  it('has every shard due before its first read', () => {
    expect(times.due()).toEqual([0, 1, 2]);
  });

  it('leaves a shard unread until its next member is due, and no longer than the quiet time', () => {
    // Read at store time 50,000 (this clock 1,000): its next member due 5 s later; another shard empty.
    times.read(0, nowMs, nothingDue(50_000, 55_000), 30_000);
    times.read(1, nowMs, nothingDue(50_000), 30_000);
    times.read(2, nowMs, nothingDue(50_000, 90_000), 30_000);
    expect(times.due()).toEqual([]);
    nowMs += 4999;
    expect(times.due()).toEqual([]);
    nowMs += 1;
    expect(times.due()).toEqual([0]);
    nowMs += 25_000;
    expect(times.due()).toEqual([0, 1, 2]);
  });

  it('reads a shard with a member due at the next pass, and every shard at each pass without a quiet time', () => {
    times.read(0, nowMs, { storeNowMs: 50_000, due: [{ shard: 0, member: 'r', score: 49_000 }], nextDueMs: 90_000 }, 30_000);
    times.read(1, nowMs, nothingDue(50_000, 90_000), undefined);
    times.read(2, nowMs, nothingDue(50_000, 90_000), 30_000);
    expect(times.due()).toEqual([0, 1]);
  });

  it('counts from when the read was sent, so a slow answer makes the next read earlier, not later', () => {
    const sentAt = nowMs;
    nowMs += 200;
    times.read(0, sentAt, nothingDue(50_000, 51_000), 30_000);
    times.read(1, nowMs, nothingDue(50_000), 30_000);
    times.read(2, nowMs, nothingDue(50_000), 30_000);
    nowMs = sentAt + 1000;
    expect(times.due()).toEqual([0]);
  });

  it('reads every shard again when its clock goes back (a test clock set back)', () => {
    for (const shard of [0, 1, 2]) times.read(shard, nowMs, nothingDue(50_000), 30_000);
    expect(times.due()).toEqual([]);
    nowMs -= 1;
    expect(times.due()).toEqual([0, 1, 2]);
  });
});
