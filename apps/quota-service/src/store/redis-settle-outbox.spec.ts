import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { createLogger } from '@gw/service-kit';
import { createTestRedis, TestRedis } from '@gw/testing';
import { openRedisClient } from './open-redis-client';
import { settleOutboxKey } from './redis-keys';
import { RedisSettleOutbox, SETTLE_GROUP } from './redis-settle-outbox';
import { describeSettleOutboxContract, settleRecord } from './settle-outbox.contract';
import { StoreUnavailableError } from './store-unavailable-error';

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
const outboxAt = (keyPrefix: string, consumer: string, claimIdleMs = 30_000) => new RedisSettleOutbox(redis, { keyPrefix, consumer, claimIdleMs });

describeSettleOutboxContract('redis', async () => outboxAt(newPrefix(), 'replica-1'));

describe('RedisSettleOutbox', () => {
  it('hands each new record to one replica only', async () => {
    const prefix = newPrefix();
    const [a, b] = [outboxAt(prefix, 'a'), outboxAt(prefix, 'b')];
    const appended = Array.from({ length: 6 }, () => settleRecord());
    for (const record of appended) await a.append(record);
    const [fromA, fromB] = [await a.claim(3), await b.claim(10)];
    expect([...fromA, ...fromB].map((c) => c.record)).toEqual(appended);
  });

  it('lets another replica take over what a dead one left unacknowledged', async () => {
    const prefix = newPrefix();
    const dead = outboxAt(prefix, 'dead', 50);
    const alive = outboxAt(prefix, 'alive', 50);
    const record = settleRecord();
    await dead.append(record);
    expect((await dead.claim(10)).map((c) => c.record)).toEqual([record]);
    expect(await alive.claim(10)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 80));
    const taken = await alive.claim(10);
    expect(taken.map((c) => c.record)).toEqual([record]);
    await alive.ack(taken.map((c) => c.id));
    expect(await dead.claim(10)).toEqual([]);
    expect(await redis.xlen(settleOutboxKey(prefix))).toBe(0);
  });

  it('creates its consumer group again when the stream was deleted, and skips entries it cannot read', async () => {
    const prefix = newPrefix();
    const outbox = outboxAt(prefix, 'replica-1');
    await outbox.append(settleRecord());
    await outbox.claim(10);
    await redis.del(settleOutboxKey(prefix));
    const record = settleRecord();
    await redis.xgroup('CREATE', settleOutboxKey(prefix), SETTLE_GROUP, '0', 'MKSTREAM');
    await redis.xadd(settleOutboxKey(prefix), '*', 'r', '{"not":"a record"}');
    await outbox.append(record);
    expect((await outbox.claim(10)).map((c) => c.record)).toEqual([record]);
    await redis.del(settleOutboxKey(prefix));
    expect(await outbox.claim(10)).toEqual([]);
  });

  it('rejects with StoreUnavailableError when Redis cannot be reached', async () => {
    const down = await openRedisClient({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 200 }, silent);
    const outbox = new RedisSettleOutbox(down, { keyPrefix: newPrefix(), consumer: 'x', claimIdleMs: 1000 });
    await expect(outbox.append(settleRecord())).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(outbox.claim(1)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(outbox.ack(['1-0'])).rejects.toBeInstanceOf(StoreUnavailableError);
    down.disconnect();
  });
});
