import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { createLogger } from '@gw/service-kit';
import { createTestRedis, TestRedis } from '@gw/testing';
import { grantLine, paidStep, SETTINGS } from '../../../test/store-contracts/admission-fixtures';
import { loadAdmissionScripts } from '../admission/admission-scripts';
import { loadLimitScripts } from '../limits/limit-scripts';
import { openRedisClient } from '../redis/open-redis-client';
import { RedisAdmissionStore } from '../admission/redis-admission-store';
import { KeyLayout, redisKeys } from '../redis/redis-keys';
import { RedisLimitStore } from '../limits/redis-limit-store';
import { RedisStoreAudit } from './redis-store-audit';

const silent = createLogger('quota-service-test', 'error', () => undefined);

let testRedis: TestRedis;
let plain: Redis;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  testRedis = await createTestRedis();
  plain = new Redis(testRedis.url);
});
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  plain?.disconnect();
  await testRedis.cleanup();
});

/** The admission and limit stores and the audit's reads, on keys of their own under the test's prefix. */
async function open(layout: KeyLayout) {
  const prefix = `${testRedis.keyPrefix}${randomUUID().slice(0, 8)}:`;
  const client = await openRedisClient(
    {
      url: testRedis.url,
      commandTimeoutMs: 1000,
      onReady: (c) => Promise.all([loadAdmissionScripts(c), loadLimitScripts(c)]).then(() => undefined),
    },
    silent,
  );
  const keys = redisKeys(layout, prefix);
  const limits = new RedisLimitStore(client, SETTINGS, { keys });
  closers.push(() => limits.close());
  return { keys, admission: new RedisAdmissionStore(client, SETTINGS, { keys }), limits, audit: new RedisStoreAudit(client, keys, prefix) };
}

const all = async <T>(items: AsyncIterable<T[]>): Promise<T[]> => {
  const found: T[] = [];
  for await (const batch of items) found.push(...batch);
  return found;
};

describe.each(['account', 'shard'] as const)('RedisStoreAudit, %s layout', (layout) => {
  it('finds every account with a line or places, once, and none of another prefix', async () => {
    const { admission, limits, audit } = await open(layout);
    const other = await open(layout);
    const ids = ['acct_b', 'acct_a', 'acct_{odd}:credit'];
    for (const id of ids) await grantLine(admission, id, 10_000);
    await admission.admit(paidStep('acct_a', 1000));
    expect((await limits.acquirePlace('acct_places_only', 'chat-1')).granted).toBe(true);
    await grantLine(other.admission, 'acct_elsewhere', 10_000);
    expect((await all(audit.accountIds(2))).sort()).toEqual([...ids, 'acct_places_only'].sort());
  });

  it("reads an account's credit, holds and places with which of them are leased, in one look", async () => {
    const { keys, admission, limits, audit } = await open(layout);
    await grantLine(admission, 'acct_1', 100_000);
    const step = paidStep('acct_1', 6000);
    await admission.admit(step);
    expect((await limits.acquirePlace('acct_1', 'chat-1', { caller: 'chat-product', countsTurn: true })).granted).toBe(true);
    const [facts] = await audit.facts(['acct_1']);
    expect(facts).toMatchObject({
      accountId: 'acct_1',
      credit: { granted: 100_000, charged: 0, returned: 0, held: 6000 },
      holds: new Map([[step.requestId, 6000]]),
    });
    expect([...facts.places.keys()].sort()).toEqual([step.requestId, 'chat-1'].sort());
    // The chat product's place is read as its grant time, as the edge's is (place-overdue needs it).
    const [chatGranted, apiGranted] = [facts.places.get('chat-1') ?? NaN, facts.places.get(step.requestId) ?? NaN];
    expect(Number.isSafeInteger(chatGranted)).toBe(true);
    expect(Math.abs(chatGranted - apiGranted)).toBeLessThan(5000);
    expect(facts.leased).toEqual(new Set([step.requestId]));

    // A hold whose lease is gone.
    const leases = keys.account('acct_1').shard.leases;
    await plain.multi().hdel(leases.data, step.requestId).zrem(leases.lapse, step.requestId).exec();
    const [orphaned] = await audit.facts(['acct_1']);
    expect(orphaned.holds.get(step.requestId)).toBe(6000);
    expect(orphaned.leased).toEqual(new Set());
  });

  it("counts a hold that only the previous release's hash holds, and none of a record that release kept after its request finished", async () => {
    const { keys, admission, audit } = await open(layout);
    await grantLine(admission, 'acct_1', 100_000);
    const [both, previousOnly, finished] = [paidStep('acct_1', 6000), paidStep('acct_1', 5000), paidStep('acct_1', 700)];
    for (const step of [both, previousOnly, finished]) await admission.admit(step);
    const a = keys.account('acct_1');
    await plain.hdel(a.admissions, previousOnly.requestId);
    const record = await plain.hget(a.admissions, finished.requestId);
    await admission.finish({
      accountId: 'acct_1',
      requestId: finished.requestId,
      admitted: true,
      usageEstimated: false,
      lapsed: false,
      payment: 'paid',
      tokens: 10,
      chargeMicro: 100,
      bill: undefined,
    });
    // The previous release kept a lapsed request's record in the admissions hash after its finish.
    await plain.hset(a.admissions, finished.requestId, record as string);

    const [facts] = await audit.facts(['acct_1']);
    expect(facts.holds).toEqual(
      new Map([
        [both.requestId, 6000],
        [previousOnly.requestId, 5000],
      ]),
    );
    expect(facts.credit.held).toBe(11_000);
  });

  it("reads whether the store knows the account's line and how many of its bills wait, in the same look", async () => {
    const { keys, admission, audit } = await open(layout);
    await grantLine(admission, 'acct_1', 100_000);
    expect(await audit.facts(['acct_1'])).toMatchObject([{ lineKnown: true, billsWaiting: 0 }]);
    // Redis lost the line; a re-sent finish charged 3,000 in it since, its bill waiting.
    const a = keys.account('acct_1');
    await plain.multi().del(a.credit).hset(a.credit, 'ch', 3000).hset(a.unbilled, 'req_1', 1).exec();
    expect(await audit.facts(['acct_1'])).toMatchObject([
      { lineKnown: false, billsWaiting: 1, credit: { granted: 0, charged: 3000, returned: 0, held: 0 } },
    ]);
  });

  it('finds the leases that lapsed before a time, with their account, and the free pool used today', async () => {
    const { keys, admission, audit } = await open(layout);
    await grantLine(admission, 'acct_lapsing', 100_000);
    const step = paidStep('acct_lapsing', 6000);
    await admission.admit(step);
    const leases = keys.account('acct_lapsing').shard.leases;
    const lapse = Number(await plain.zscore(leases.lapse, step.requestId));
    expect(await audit.overdueLeases(lapse, 10)).toEqual([]);
    expect(await audit.overdueLeases(lapse + 1, 10)).toEqual([{ requestId: step.requestId, accountId: 'acct_lapsing', lapsedAtMs: lapse }]);

    const now = Date.now();
    expect(await audit.freePoolUsed(now)).toBe(0);
    await plain.hset(keys.freeTier.poolBudget, 'day', Math.floor(now / 86_400_000), 'used', -4);
    expect(await audit.freePoolUsed(now)).toBe(-4);
    expect(await audit.freePoolUsed(now + 86_400_000)).toBe(0);
  });
});
