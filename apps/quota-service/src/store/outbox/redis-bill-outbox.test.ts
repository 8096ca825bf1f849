import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { createLogger } from '@gw/service-kit';
import { createTestRedis, eventually, TestRedis } from '@gw/testing';
import { openRedisClient } from '../redis/open-redis-client';
import { KeyLayout, redisKeys } from '../redis/redis-keys';
import { RedisBillOutbox } from './redis-bill-outbox';
import { OutboxRecord } from './bill-outbox';
import { describeBillOutboxContract, olderOutboxBill } from '../../../test/store-contracts/bill-outbox.contract';
import { StoreUnavailableError } from '../store-unavailable-error';

const silent = createLogger('quota-service-test', 'error', () => undefined);
let testRedis: TestRedis;
let redis: Redis;

beforeAll(async () => {
  testRedis = await createTestRedis();
  redis = await openRedisClient({ url: testRedis.url, commandTimeoutMs: 1000 }, silent);
});
afterAll(async () => {
  await redis.quit();
  await testRedis.cleanup();
});

const newPrefix = () => `${testRedis.keyPrefix}${randomUUID()}:`;
const outboxAt = (keyPrefix: string, consumer: string, claimIdleMs: number, layout: KeyLayout) =>
  new RedisBillOutbox(redis, { keys: redisKeys(layout, keyPrefix), consumer, claimIdleMs });

for (const layout of ['account', 'shard'] as const) {
  describeBillOutboxContract(`redis, ${layout} layout`, async () => outboxAt(newPrefix(), 'replica-1', 30_000, layout));

  describe(`RedisBillOutbox, ${layout} layout`, () => {
    const keysOf = (prefix: string) => redisKeys(layout, prefix);
    /** The stream that olderOutboxBill()'s account appends to. */
    const streamOf = (prefix: string) => keysOf(prefix).shardOfAccount(olderOutboxBill().accountId).outbox;

    it("appends each record to its account's shard, counts them all as waiting, and hands each to one of two replicas at once", async () => {
      const prefix = newPrefix();
      const [a, b] = [outboxAt(prefix, 'a', 30_000, layout), outboxAt(prefix, 'b', 30_000, layout)];
      const appended = Array.from({ length: 60 }, (_, i) => olderOutboxBill({ accountId: `acct_${i % 20}` }));
      for (const record of appended) await a.append(record);
      const perStream = new Map<string, number>();
      for (const { accountId } of appended) {
        const stream = keysOf(prefix).shardOfAccount(accountId).outbox;
        perStream.set(stream, (perStream.get(stream) ?? 0) + 1);
      }
      for (const [stream, records] of perStream) expect(await redis.xlen(stream)).toBe(records);
      // 20 accounts: one stream in the account layout, several shards' in the shard layout.
      expect(perStream.size === 1).toBe(layout === 'account');
      expect((await a.backlog()).records).toBe(60);

      const handed: OutboxRecord[] = [];
      for (let turn = 0; turn < 20 && handed.length < appended.length; turn++) {
        const claims = await Promise.all([a.claim(7), b.claim(7)]);
        for (const claimed of claims) expect(claimed.length).toBeLessThanOrEqual(7);
        handed.push(...claims.flat().map((c) => c.record));
        await Promise.all([a.ack(claims[0].map((c) => c.id)), b.ack(claims[1].map((c) => c.id))]);
      }
      const ids = (records: OutboxRecord[]) => records.map((r) => JSON.stringify(r)).sort();
      expect(ids(handed)).toEqual(ids(appended));
      expect(await b.backlog()).toEqual({ records: 0, oldestAgeSeconds: 0 });
    });

    it("hands out each account's records in the order they were appended", async () => {
      const prefix = newPrefix();
      const outbox = outboxAt(prefix, 'a', 30_000, layout);
      const appended = Array.from({ length: 40 }, (_, i) => olderOutboxBill({ accountId: `acct_${i % 8}` }));
      for (const record of appended) await outbox.append(record);
      const handed: OutboxRecord[] = [];
      for (let claimed = await outbox.claim(5); claimed.length > 0; claimed = await outbox.claim(5)) {
        handed.push(...claimed.map((c) => c.record));
        await outbox.ack(claimed.map((c) => c.id));
      }
      for (let i = 0; i < 8; i++)
        expect(handed.filter((r) => r.accountId === `acct_${i}`)).toEqual(appended.filter((r) => r.accountId === `acct_${i}`));
    });

    it('lets another replica take over what a dead one left unacknowledged', async () => {
      const prefix = newPrefix();
      const dead = outboxAt(prefix, 'dead', 50, layout);
      const alive = outboxAt(prefix, 'alive', 50, layout);
      const record = olderOutboxBill();
      await dead.append(record);
      expect((await dead.claim(10)).map((c) => c.record)).toEqual([record]);
      expect(await alive.claim(10)).toEqual([]);
      const taken = await eventually(
        () => alive.claim(10),
        (claimed) => claimed.length > 0,
        { intervalMs: 20 },
      );
      expect(taken.map((c) => c.record)).toEqual([record]);
      await alive.ack(taken.map((c) => c.id));
      expect(await dead.claim(10)).toEqual([]);
      expect(await redis.xlen(streamOf(prefix))).toBe(0);
    });

    it('creates its consumer group again when the stream was deleted, and skips entries it cannot read', async () => {
      const prefix = newPrefix();
      const outbox = outboxAt(prefix, 'replica-1', 30_000, layout);
      await outbox.append(olderOutboxBill());
      await outbox.claim(10);
      await redis.del(streamOf(prefix));
      const record = olderOutboxBill();
      await redis.xadd(streamOf(prefix), '*', 'r', '{"not":"a record"}');
      await outbox.append(record);
      expect((await outbox.claim(10)).map((c) => c.record)).toEqual([record]);
      expect(await redis.xinfo('GROUPS', streamOf(prefix))).toHaveLength(1);
      await redis.del(streamOf(prefix));
      expect(await outbox.claim(10)).toEqual([]);
    });
  });
}

describe('RedisBillOutbox', () => {
  it('asks only the shards it appended to or that had entries, and every shard each half claim time, finding what another replica left', async () => {
    const prefix = newPrefix();
    const keys = redisKeys('shard', prefix);
    const [replica, other] = [outboxAt(prefix, 'replica', 60_000, 'shard'), outboxAt(prefix, 'other', 60_000, 'shard')];
    const [mine, left] = [olderOutboxBill({ accountId: 'acct_mine' }), olderOutboxBill({ accountId: 'acct_left' })];
    expect(keys.shardOfAccount(mine.accountId)).not.toBe(keys.shardOfAccount(left.accountId));
    let nowMs = Date.now();
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => nowMs);
    const lengthsAsked = jest.spyOn(redis, 'xlen');
    try {
      // The first claim asks every shard; an idle one after it asks none.
      expect(await replica.claim(10)).toEqual([]);
      expect(lengthsAsked).toHaveBeenCalledTimes(keys.shards.length);
      lengthsAsked.mockClear();
      expect(await replica.claim(10)).toEqual([]);
      expect(lengthsAsked).not.toHaveBeenCalled();

      // Another replica appends and dies before reading it; this one appends too, and reads its own at once.
      await other.append(left);
      await replica.append(mine);
      const own = await replica.claim(10);
      expect(own.map((c) => c.record)).toEqual([mine]);
      expect(lengthsAsked).not.toHaveBeenCalled();
      await replica.ack(own.map((c) => c.id));
      // The next claim asks that shard's length, finds it empty, and the one after asks none.
      lengthsAsked.mockClear();
      expect(await replica.claim(10)).toEqual([]);
      expect(await replica.claim(10)).toEqual([]);
      expect(lengthsAsked).toHaveBeenCalledTimes(1);

      // Half the claim time later it asks every shard, and finds what the other left.
      lengthsAsked.mockClear();
      nowMs += 30_000;
      const found = await replica.claim(10);
      expect(found.map((c) => c.record)).toEqual([left]);
      expect(lengthsAsked).toHaveBeenCalledTimes(keys.shards.length);
      await replica.ack(found.map((c) => c.id));
    } finally {
      lengthsAsked.mockRestore();
      clock.mockRestore();
    }
  });

  it('rejects with StoreUnavailableError when Redis cannot be reached', async () => {
    const down = await openRedisClient({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 200 }, silent);
    const outbox = new RedisBillOutbox(down, { keys: redisKeys('shard', newPrefix()), consumer: 'x', claimIdleMs: 1000 });
    await expect(outbox.append(olderOutboxBill())).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(outbox.claim(1)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(outbox.ack(['0/1-0'])).rejects.toBeInstanceOf(StoreUnavailableError);
    down.disconnect();
  });
});
