import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { createLogger } from '@gw/service-kit';
import { createTestRedis, eventually, TestRedis } from '@gw/testing';
import { loadLeaseScripts } from './lease-scripts';
import { LeaseRecord } from './lease-store';
import { describeLeaseStoreContract } from '../../../test/store-contracts/lease-store.contract';
import { openRedisClient } from '../redis/open-redis-client';
import { redisKeys } from '../redis/redis-keys';
import { RedisLeaseStore } from './redis-lease-store';
import { StoreUnavailableError } from '../store-unavailable-error';

const silent = createLogger('quota-service-test', 'error', () => undefined);

let testRedis: TestRedis;
const clients: Redis[] = [];
const connect = async (url = testRedis.url): Promise<Redis> => {
  const client = await openRedisClient({ url, commandTimeoutMs: 1000, onReady: loadLeaseScripts }, silent);
  clients.push(client);
  return client;
};

beforeAll(async () => {
  testRedis = await createTestRedis();
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await testRedis.cleanup();
});

for (const layout of ['account', 'shard'] as const) {
  describeLeaseStoreContract(
    `redis, ${layout} layout`,
    async (now) => new RedisLeaseStore(await connect(), { keys: redisKeys(layout, testRedis.keyPrefix), now }),
  );
}

const lease = (accountId: string): LeaseRecord => ({
  requestId: randomUUID(),
  accountId,
  model: 'm',
  payment: 'free',
  promptTokens: 1,
  completionTokens: 2,
  usageEstimated: true,
});

describe('RedisLeaseStore', () => {
  it('lapses leases by Redis time when no clock is given', async () => {
    const store = new RedisLeaseStore(await connect(), { keys: redisKeys('account', testRedis.keyPrefix) });
    const lease = {
      requestId: 'r-redis-time',
      accountId: 'a',
      model: 'm',
      payment: 'free' as const,
      promptTokens: 1,
      completionTokens: 2,
      usageEstimated: true,
    };
    // A TTL far above a loaded machine's pause between two commands (50 ms lapsed before the first check in one CI run).
    await store.start(lease, 1000);
    expect(await store.claimLapsed(10, 1000)).toEqual([]);
    expect(
      await eventually(
        () => store.claimLapsed(10, 1000),
        (lapsed) => lapsed.length > 0,
        { intervalMs: 100 },
      ),
    ).toEqual([lease]);
    await store.end(lease);
  });

  it('in the shard layout, claims the oldest lapsed leases of all shards, no more than asked, and never one for two replicas', async () => {
    let nowMs = Date.UTC(2031, 4, 6, 10, 0, 0);
    const keys = redisKeys('shard', `${testRedis.keyPrefix}${randomUUID()}:`);
    const [one, two] = [await connect(), await connect()].map((client) => new RedisLeaseStore(client, { keys, now: () => nowMs }));
    // 120 leases of 120 accounts, started 1 ms apart, so spread over the shards.
    const leases = Array.from({ length: 120 }, (_, i) => ({ ...lease(`acct_${i}`), requestId: `r${String(i).padStart(3, '0')}` }));
    for (const started of leases) {
      await one.start(started, 1000);
      nowMs += 1;
    }
    expect(new Set(leases.map((l) => keys.shardOfAccount(l.accountId))).size).toBeGreaterThan(40);
    nowMs += 1000;
    expect((await one.claimLapsed(10, 60_000)).map((l) => l.requestId)).toEqual(leases.slice(0, 10).map((l) => l.requestId));
    const [byOne, byTwo] = await Promise.all([one.claimLapsed(50, 60_000), two.claimLapsed(50, 60_000)]);
    expect(byOne.length + byTwo.length).toBeGreaterThan(0);
    for (const claimed of [byOne, byTwo]) expect(claimed.length).toBeLessThanOrEqual(50);
    const rest = await one.claimLapsed(1000, 60_000);
    const claimedIds = [...byOne, ...byTwo, ...rest].map((l) => l.requestId).sort();
    expect(claimedIds).toEqual(leases.slice(10).map((l) => l.requestId));
  });

  it('rejects with StoreUnavailableError when Redis does not answer', async () => {
    const client = await connect();
    const store = new RedisLeaseStore(client, { keys: redisKeys('account', testRedis.keyPrefix) });
    client.disconnect();
    await expect(store.claimLapsed(10, 1000)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
