import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { createLogger } from '@gw/service-kit';
import { createTestRedis, TestRedis } from '@gw/testing';
import { FreeTierGate } from '../../domain/free-tier-gate';
import { describeFreeTierBudget } from '../../../test/store-contracts/free-tier-budget.contract';
import { describeFreeTierDecisions } from '../../../test/store-contracts/free-tier-decisions.contract';
import {
  EVENING,
  freeRequest,
  FreeTierStoreFactory,
  RESERVED,
  TEST_DEFAULTS,
  TEST_LIMITS,
} from '../../../test/store-contracts/free-tier-fixtures';
import { loadFreeTierScripts } from './free-tier-scripts';
import { openRedisClient } from '../redis/open-redis-client';
import { redisKeys } from '../redis/redis-keys';
import { RedisFreeTierStore } from './redis-free-tier-store';
import { StoreUnavailableError } from '../store-unavailable-error';

const silent = createLogger('quota-service-test', 'error', () => undefined);
let testRedis: TestRedis;
let redis: Redis;
const connect = (url: string, commandTimeoutMs = 1000) => openRedisClient({ url, commandTimeoutMs, onReady: loadFreeTierScripts }, silent);

beforeAll(async () => {
  testRedis = await createTestRedis();
  redis = await connect(testRedis.url);
});
afterAll(async () => {
  await redis.quit();
  await testRedis.cleanup();
});

for (const layout of ['account', 'shard'] as const) {
  /** Each store gets a key space of its own inside the test file's, so that each has its own pool. */
  const open: FreeTierStoreFactory = async (defaults, now) =>
    new RedisFreeTierStore(redis, defaults, { keys: redisKeys(layout, `${testRedis.keyPrefix}${randomUUID()}:`), now });
  describeFreeTierDecisions(`redis, ${layout} layout`, open);
  describeFreeTierBudget(`redis, ${layout} layout`, open);
}

describe('RedisFreeTierStore', () => {
  it('shows a change of the settings to every replica', async () => {
    const keyPrefix = `${testRedis.keyPrefix}${randomUUID()}:`;
    const [one, two] = [0, 1].map(() => new RedisFreeTierStore(redis, TEST_DEFAULTS, { keys: redisKeys('account', keyPrefix) }));
    await one.updateSettings({ paused: true, dailyTokens: 1234 });
    const { settings, nowMs } = await two.snapshot();
    expect(settings).toEqual({ ...TEST_DEFAULTS, paused: true, dailyTokens: 1234 });
    expect(Math.abs(nowMs - Date.now())).toBeLessThan(5000);
  });

  it("keeps the allowance with the account's keys and the pool under {freetier}, every key expiring", async () => {
    const keys = redisKeys('shard', `${testRedis.keyPrefix}${randomUUID()}:`);
    const store = new RedisFreeTierStore(redis, TEST_DEFAULTS, { keys, now: () => EVENING });
    const account = `acct_${randomUUID()}`;
    expect(await new FreeTierGate(store, TEST_LIMITS).reserve(freeRequest(account))).toMatchObject({ reservedTokens: RESERVED });
    const own = keys.account(account);
    const pool = keys.freeTier;
    for (const key of [own.freeBudget, own.freeHolds, own.freeExpiry, pool.poolBudget, pool.poolHolds, pool.poolExpiry]) {
      expect(await redis.pttl(key)).toBeGreaterThan(0);
    }
  });

  it('rejects with StoreUnavailableError, at once, when Redis cannot be reached', async () => {
    const down = await connect('redis://127.0.0.1:1', 200);
    const store = new RedisFreeTierStore(down, TEST_DEFAULTS, { keys: redisKeys('account', testRedis.keyPrefix) });
    await expect(store.snapshot()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.updateSettings({ paused: true })).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(
      store.reserve({ accountId: 'a', requestId: 'r', tokens: 1, dailyTokens: 9, poolTokens: 9, ttlMs: 1000 }),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.settle('a', 'r', 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    down.disconnect();
  });
});
