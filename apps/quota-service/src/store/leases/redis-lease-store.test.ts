import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { createLogger } from '@gw/service-kit';
import { createTestRedis, eventually, TestRedis } from '@gw/testing';
import { loadLeaseScripts } from './lease-scripts';
import { LeaseRecord } from './lease-store';
import { describeLeaseStoreContract } from '../../../test/store-contracts/lease-store.contract';
import { openRedisClient } from '../redis/open-redis-client';
import { DUE_MEMBERS } from '../redis/due-members';
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
// The contract's shortest lapse is its lease time (30 s): the same behaviour when claims skip the shards not due.
describeLeaseStoreContract(
  'redis, shard layout, reading only the shards due',
  async (now) => new RedisLeaseStore(await connect(), { keys: redisKeys('shard', testRedis.keyPrefix), now, shortestLapseMs: 30_000 }),
);

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

  it('reads a shard again only once a lease there can have lapsed, and every shortest lapse time at least', async () => {
    let nowMs = Date.UTC(2031, 4, 6, 10, 0, 0);
    const client = await connect();
    const keys = redisKeys('shard', `${testRedis.keyPrefix}${randomUUID()}:`);
    const store = new RedisLeaseStore(client, { keys, now: () => nowMs, shortestLapseMs: 30_000 });
    const scriptsSent = jest.spyOn(client, 'evalsha');
    const reads = () => scriptsSent.mock.calls.filter(([sha]) => sha === DUE_MEMBERS.sha).length;
    const shards = keys.shards.length;
    // The first claim reads every shard; then none is due for the shortest lapse time.
    expect(await store.claimLapsed(10, 30_000)).toEqual([]);
    expect(reads()).toBe(shards);
    nowMs += 10_000;
    const running = lease('acct_running');
    await store.start(running, 30_000);
    nowMs += 19_999;
    expect(await store.claimLapsed(10, 30_000)).toEqual([]);
    expect(reads()).toBe(shards);
    // Each shard is read again once the shortest lapse time has run out...
    nowMs += 1;
    expect(await store.claimLapsed(10, 30_000)).toEqual([]);
    expect(reads()).toBe(2 * shards);
    // ...and a shard as soon as a lease there can have lapsed: the running lease's alone.
    nowMs += 10_000;
    expect(await store.claimLapsed(10, 30_000)).toEqual([running]);
    expect(reads()).toBe(2 * shards + 1);

    // A lease written behind the store's back with an earlier lapse (as a failover to an older
    // replica could leave) is found once its shard's quiet time runs out.
    const stray = lease('acct_stray');
    const shard = keys.shardOfAccount(stray.accountId);
    await client.zadd(shard.leases.lapse, nowMs - 1, stray.requestId);
    await client.hset(shard.leases.data, stray.requestId, JSON.stringify(stray));
    expect(await store.claimLapsed(10, 30_000)).toEqual([]);
    nowMs += 20_000;
    expect(await store.claimLapsed(10, 30_000)).toEqual([stray]);
    scriptsSent.mockRestore();
  });

  it('rejects with StoreUnavailableError when Redis does not answer', async () => {
    const client = await connect();
    const store = new RedisLeaseStore(client, { keys: redisKeys('account', testRedis.keyPrefix) });
    client.disconnect();
    await expect(store.claimLapsed(10, 1000)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
