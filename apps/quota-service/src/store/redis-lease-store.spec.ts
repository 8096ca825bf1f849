import Redis from 'ioredis';
import { createLogger } from '@gw/service-kit';
import { createTestRedis, TestRedis } from '@gw/testing';
import { loadLeaseScripts } from './lease-scripts';
import { describeLeaseStoreContract } from './lease-store.contract';
import { openRedisClient } from './open-redis-client';
import { RedisLeaseStore } from './redis-lease-store';
import { StoreUnavailableError } from './store-unavailable-error';

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

describeLeaseStoreContract('redis', async (now) => new RedisLeaseStore(await connect(), { keyPrefix: testRedis.keyPrefix, now }));

describe('RedisLeaseStore', () => {
  it('lapses leases by Redis time when no clock is given', async () => {
    const store = new RedisLeaseStore(await connect(), { keyPrefix: testRedis.keyPrefix });
    const lease = { requestId: 'r-redis-time', accountId: 'a', model: 'm', payment: 'free' as const, promptTokens: 1, completionTokens: 2, usageEstimated: true };
    await store.start(lease, 50);
    expect(await store.claimLapsed(10, 1000)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await store.claimLapsed(10, 1000)).toEqual([lease]);
    await store.end(lease);
  });

  it('rejects with StoreUnavailableError when Redis does not answer', async () => {
    const client = await connect();
    const store = new RedisLeaseStore(client, { keyPrefix: testRedis.keyPrefix });
    client.disconnect();
    await expect(store.claimLapsed(10, 1000)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
