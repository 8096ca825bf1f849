import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { createLogger } from '@gw/service-kit';
import { createTestRedis, TestRedis } from '@gw/testing';
import { loadLimitScripts } from './limit-scripts';
import { describeFinishRequestContract } from '../../../test/store-contracts/finish-request.contract';
import { describeLimitStoreContract } from '../../../test/store-contracts/limit-store.contract';
import { defineScript } from '../redis/lua-script';
import { openRedisClient } from '../redis/open-redis-client';
import { KeyLayout, redisKeys } from '../redis/redis-keys';
import { RedisLimitStore } from './redis-limit-store';
import { StoreUnavailableError } from '../store-unavailable-error';

const SETTINGS = { requestsPerMinute: 30, concurrentPlaces: 3, placeRecoveryMs: 130_000 };
const silent = createLogger('quota-service-test', 'error', () => undefined);

let testRedis: TestRedis;
/** Every store opened here; closing a store closes its client. */
const stores: RedisLimitStore[] = [];
const openStore = (client: Redis, settings = SETTINGS, now?: () => number, layout: KeyLayout = 'account'): RedisLimitStore => {
  const store = new RedisLimitStore(client, settings, { keys: redisKeys(layout, testRedis.keyPrefix), now });
  stores.push(store);
  return store;
};
const connect = (url = testRedis.url, commandTimeoutMs = 1000): Promise<Redis> =>
  openRedisClient({ url, commandTimeoutMs, onReady: loadLimitScripts }, silent);

beforeAll(async () => {
  testRedis = await createTestRedis();
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await testRedis.cleanup();
});

for (const layout of ['account', 'shard'] as const) {
  describeLimitStoreContract(`redis, ${layout} layout`, async (settings, now) => openStore(await connect(), settings, now, layout));
  describeFinishRequestContract(`redis, ${layout} layout`, async (settings, now) => openStore(await connect(), settings, now, layout));
}

describe('RedisLimitStore', () => {
  let redis: Redis;
  let store: RedisLimitStore;
  let account: string;

  beforeAll(async () => {
    redis = await connect();
    store = openStore(redis);
  });
  beforeEach(() => {
    account = `acct_${randomUUID()}`;
  });

  it('takes the time from Redis when no clock is given', async () => {
    const before = Date.now();
    const counted = await store.countRequest(account);
    const after = Date.now();
    // A little slack for a Redis clock that is not exactly this host's.
    expect(counted.resetUnixSeconds * 1000).toBeGreaterThan(before - 2000);
    expect(counted.resetUnixSeconds * 1000).toBeLessThanOrEqual(after + 62_000);
    expect(counted.resetUnixSeconds % 60).toBe(0);
    // The clock it answers is the one its minute was taken from.
    expect(counted.nowMs).toBeGreaterThan(before - 2000);
    expect(counted.nowMs).toBeLessThan(after + 2000);
    expect(Math.floor(counted.nowMs / 60_000) + 1).toBe(counted.resetUnixSeconds / 60);
  });

  it('lets every key of an account expire except the total', async () => {
    await store.countRequest(account);
    await store.acquirePlace(account, 'r1');
    await store.acquirePlace(account, 'r2');
    await store.releasePlace(account, 'r1', 10);
    const keys = redisKeys('account', testRedis.keyPrefix).account(account);

    expect(await redis.pttl(keys.minute)).toBeGreaterThan(0);
    expect(await redis.pttl(keys.minute)).toBeLessThanOrEqual(60_000);
    expect(await redis.pttl(keys.places)).toBeGreaterThan(120_000);
    expect(await redis.pttl(keys.places)).toBeLessThanOrEqual(130_000);
    expect(await redis.pttl(keys.lastGrant)).toBeLessThanOrEqual(130_000);
    expect(await redis.ttl(keys.usageToday)).toBeGreaterThan(172_000);
    expect(await redis.ttl(keys.usageTotal)).toBe(-1);
  });

  it('runs a script that the server does not have cached (NOSCRIPT falls back to EVAL)', async () => {
    const script = defineScript('probe', { keys: [], args: ['n'], body: `return {tonumber(n) + 1} -- ${randomUUID()}` });
    expect(await redis.script('EXISTS', script.sha)).toEqual([0]);
    expect(await script.run(redis, [], script.argList({ n: 41 }))).toEqual([42]);
    expect(await redis.script('EXISTS', script.sha)).toEqual([1]);
    await script.load(redis);
  });

  it('rejects with StoreUnavailableError, at once, when Redis cannot be reached', async () => {
    const down = openStore(await connect('redis://127.0.0.1:1', 200));
    await expect(down.countRequest(account)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(down.acquirePlace(account, 'r1')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(down.releasePlace(account, 'r1', 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(down.getUsage(account)).rejects.toBeInstanceOf(StoreUnavailableError);
    await down.close();
  });
});
