import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { createLogger } from '@gw/service-kit';
import { createTestRedis, TestRedis } from '@gw/testing';
import { RedisCommandMeter } from '../../../test/redis-command-meter';
import {
  AdmissionStores,
  AdmissionStoresFactory,
  freeStep,
  grantLine,
  LEASE_TTL,
  paidBill,
  paidStep,
  SETTINGS,
} from '../../../test/store-contracts/admission-fixtures';
import { loadAdmissionScripts } from './admission-scripts';
import { describeAdmissionContract } from '../../../test/store-contracts/admission-store.contract';
import { describeAdmittedFinishContract } from '../../../test/store-contracts/admitted-finish.contract';
import { describeLapseGraceContract } from '../../../test/store-contracts/lapse-grace.contract';
import { TEST_DEFAULTS } from '../../../test/store-contracts/free-tier-fixtures';
import { loadFreeTierScripts } from '../free-tier/free-tier-scripts';
import { loadLeaseScripts } from '../leases/lease-scripts';
import { loadLimitScripts } from '../limits/limit-scripts';
import { openRedisClient } from '../redis/open-redis-client';
import { RedisAdmissionStore } from './redis-admission-store';
import { RedisFreeTierStore } from '../free-tier/redis-free-tier-store';
import { KeyLayout, redisKeys } from '../redis/redis-keys';
import { DUE_MEMBERS } from '../redis/due-members';
import { RedisLeaseStore } from '../leases/redis-lease-store';
import { RedisLimitStore } from '../limits/redis-limit-store';
import { RedisBillOutbox } from '../outbox/redis-bill-outbox';
import { StoreUnavailableError } from '../store-unavailable-error';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const loadScripts = async (client: Redis) => {
  await Promise.all([loadLimitScripts(client), loadFreeTierScripts(client), loadLeaseScripts(client), loadAdmissionScripts(client)]);
};

let testRedis: TestRedis;
const opened: AdmissionStores[] = [];

/** Every store on one client, as quota-stores.ts opens them; `now` undefined: Redis TIME. */
async function openStores(layout: KeyLayout, now?: () => number, url = testRedis.url): Promise<AdmissionStores> {
  const client = await openRedisClient({ url, commandTimeoutMs: 1000, onReady: loadScripts }, silent);
  const options = { keys: redisKeys(layout, testRedis.keyPrefix), now };
  const outbox = new RedisBillOutbox(client, { keys: options.keys, consumer: `test-${randomUUID()}`, claimIdleMs: 60_000 });
  const stores = {
    admission: new RedisAdmissionStore(client, SETTINGS, { ...options, outboxAppends: outbox }),
    limits: new RedisLimitStore(client, SETTINGS, options),
    leases: new RedisLeaseStore(client, options),
    outbox,
    freeTier: new RedisFreeTierStore(client, TEST_DEFAULTS, options),
  };
  opened.push(stores);
  return stores;
}

beforeAll(async () => {
  testRedis = await createTestRedis();
});
afterAll(async () => {
  await Promise.all(opened.map((s) => s.limits.close()));
  await testRedis.cleanup();
});

for (const layout of ['account', 'shard'] as const) {
  const open: AdmissionStoresFactory = (_settings, now) => openStores(layout, now);
  describeAdmissionContract(`redis, ${layout} layout`, open);
  describeAdmittedFinishContract(`redis, ${layout} layout`, open);
  describeLapseGraceContract(`redis, ${layout} layout`, open);
}

describe.each(['account', 'shard'] as const)('RedisAdmissionStore, %s layout', (layout) => {
  let stores: AdmissionStores;
  let meter: RedisCommandMeter;
  let account: string;

  beforeAll(async () => {
    stores = await openStores(layout);
    meter = await RedisCommandMeter.open(testRedis.url);
  });
  afterAll(() => meter.close());
  beforeEach(() => {
    account = `acct_${randomUUID()}`;
  });

  it('admits a paid request in one round trip and finishes it in one, by Redis time', async () => {
    await grantLine(stores.admission, account, 100_000);
    const step = paidStep(account, 6000);
    const admitted = await meter.measure(account, () => stores.admission.admit(step));
    expect(admitted.result).toMatchObject({ outcome: 'admitted' });
    expect(Math.abs(admitted.result.count.nowMs - Date.now())).toBeLessThan(2000);
    expect(admitted.commands.roundTrips).toEqual(['evalsha']);
    // Count, money, place, lease and idle index in one script: about 17 commands.
    expect(admitted.commands.scriptCommands.length).toBeGreaterThanOrEqual(12);

    const bill = paidBill(account, step.requestId, 6000, 1000, 100, 1400);
    const finish = {
      accountId: account,
      requestId: step.requestId,
      admitted: true,
      usageEstimated: false,
      lapsed: false,
      payment: 'paid' as const,
      tokens: 1100,
      chargeMicro: 1400,
      bill,
    };
    const finished = await meter.measure(account, () => stores.admission.finish(finish));
    expect(finished.result).toEqual({ released: true, repeated: false, shortfallMicro: 0 });
    expect(finished.commands.roundTrips).toEqual(['evalsha']);
    expect(finished.commands.scriptCommands).toContain('xadd');
  });

  it("answers applied without a round trip the bill its own outbox acknowledged; another replica's outbox's from Redis", async () => {
    await grantLine(stores.admission, account, 100_000);
    const other = await openStores(layout);
    const [theirs, mine] = [paidStep(account, 6000), paidStep(account, 6000)];
    // Delivered by the other replica, then by this one.
    for (const [outbox, step] of [
      [other.outbox, theirs],
      [stores.outbox, mine],
    ] as const) {
      await stores.admission.admit(step);
      const bill = paidBill(account, step.requestId, 6000, 1000, 100, 1400);
      const finish = { accountId: account, requestId: step.requestId, admitted: true, usageEstimated: false, lapsed: false };
      await stores.admission.finish({ ...finish, payment: 'paid', tokens: 1100, chargeMicro: 1400, bill });
      const claimed = (await outbox.claim(10_000)).filter((c) => c.record.kind === 'bill' && c.record.requestId === step.requestId);
      expect(claimed).toHaveLength(1);
      await outbox.ack(claimed.map((c) => c.id));
    }
    const asked = await meter.measure(account, () => stores.admission.billStates([mine.lease]));
    expect(asked.result).toEqual(['applied']);
    expect(asked.commands.roundTrips).toEqual([]);
    const askedRedis = await meter.measure(account, () => stores.admission.billStates([theirs.lease]));
    expect(askedRedis.result).toEqual(['applied']);
    expect(askedRedis.commands.roundTrips).toEqual(['evalsha']);
  });

  it('asks Redis where the bill stands of a request its outbox acknowledged a bill by estimate of (the real bill may come through another replica)', async () => {
    await grantLine(stores.admission, account, 100_000);
    const step = paidStep(account, 6000);
    await stores.admission.admit(step);
    const bill = { ...paidBill(account, step.requestId, 6000, 1000, 100, 1400), usageEstimated: true };
    const finish = { accountId: account, requestId: step.requestId, admitted: true, usageEstimated: true, lapsed: true };
    await stores.admission.finish({ ...finish, payment: 'paid', tokens: 1100, chargeMicro: 1400, bill });
    const claimed = (await stores.outbox.claim(10_000)).filter((c) => c.record.kind === 'bill' && c.record.requestId === step.requestId);
    expect(claimed).toHaveLength(1);
    await stores.outbox.ack(claimed.map((c) => c.id));
    const asked = await meter.measure(account, () => stores.admission.billStates([step.lease]));
    expect(asked.result).toEqual(['applied']);
    expect(asked.commands.roundTrips).toEqual(['evalsha']);
  });

  it("tells the outbox the account of each finish and line return (whose scripts append to its shard's outbox), before and after", async () => {
    const told: string[] = [];
    const client = await openRedisClient({ url: testRedis.url, commandTimeoutMs: 1000, onReady: loadScripts }, silent);
    const keys = redisKeys(layout, testRedis.keyPrefix);
    const outboxAppends = { noteAppend: (id: string) => told.push(id), acknowledged: () => false, noteBill: () => undefined };
    const admission = new RedisAdmissionStore(client, SETTINGS, { keys, outboxAppends });
    try {
      await grantLine(admission, account, 100_000);
      const step = paidStep(account, 6000);
      await admission.admit(step);
      expect(told).toEqual([]);
      const bill = paidBill(account, step.requestId, 6000, 1000, 100, 1400);
      const finish = { accountId: account, requestId: step.requestId, admitted: true, usageEstimated: false, lapsed: false };
      await admission.finish({ ...finish, payment: 'paid', tokens: 1100, chargeMicro: 1400, bill });
      expect(told).toEqual([account, account]);
      await admission.returnLine(account);
      expect(told).toEqual([account, account, account, account]);
    } finally {
      client.disconnect();
    }
  });

  it('looks for idle lines in a shard again only once a line there can be idle, and every half idle time at least', async () => {
    let nowMs = Date.UTC(2031, 4, 6, 10, 0, 0);
    const idleMs = 600_000;
    const client = await openRedisClient({ url: testRedis.url, commandTimeoutMs: 1000, onReady: loadScripts }, silent);
    const keys = redisKeys(layout, `${testRedis.keyPrefix}${randomUUID()}:`);
    const admission = new RedisAdmissionStore(client, SETTINGS, { keys, now: () => nowMs });
    const scriptsSent = jest.spyOn(client, 'evalsha');
    const reads = () => scriptsSent.mock.calls.filter(([sha]) => sha === DUE_MEMBERS.sha).length;
    const shards = keys.shards.length;
    try {
      expect(await admission.idleLines(idleMs, 10)).toEqual([]);
      expect(reads()).toBe(shards);
      nowMs += 100_000;
      await grantLine(admission, account, 100_000);
      nowMs += 199_999;
      expect(await admission.idleLines(idleMs, 10)).toEqual([]);
      expect(reads()).toBe(shards);
      nowMs += 1;
      expect(await admission.idleLines(idleMs, 10)).toEqual([]);
      expect(reads()).toBe(2 * shards);
      nowMs += 300_000;
      expect(await admission.idleLines(idleMs, 10)).toEqual([]);
      expect(reads()).toBe(3 * shards);
      // Idle 600 s after its grant: its shard alone is read (the others at 900 s).
      nowMs += 100_000;
      expect(await admission.idleLines(idleMs, 10)).toEqual([account]);
      expect(reads()).toBe(3 * shards + 1);
    } finally {
      scriptsSent.mockRestore();
      client.disconnect();
    }
  });

  it('takes a second round trip, for the pool, only to finish a free or abandoned request', async () => {
    const step = freeStep(account);
    await stores.admission.admit(step);
    const finish = {
      accountId: account,
      requestId: step.requestId,
      admitted: true,
      usageEstimated: false,
      lapsed: false,
      payment: 'free' as const,
      tokens: 0,
      chargeMicro: 0,
      bill: undefined,
    };
    const finished = await meter.measure(account, () => stores.admission.finish(finish));
    expect(finished.commands.roundTrips).toEqual(['evalsha', 'evalsha']);
  });

  it('keeps the credit line and the admission records (the holds) without expiry', async () => {
    await grantLine(stores.admission, account, 100_000);
    await stores.admission.admit(paidStep(account, 6000));
    const keys = redisKeys(layout, testRedis.keyPrefix).account(account);
    const plain = new Redis(testRedis.url);
    try {
      for (const key of [keys.credit, keys.admissions]) {
        expect(await plain.hlen(key)).toBeGreaterThan(0);
        expect(await plain.pttl(key)).toBe(-1);
      }
    } finally {
      plain.disconnect();
    }
  });

  describe('beside replicas of the previous release (a rolling upgrade)', () => {
    const finishPaid = (requestId: string) => ({
      accountId: account,
      requestId,
      admitted: true,
      usageEstimated: false,
      lapsed: false,
      payment: 'paid' as const,
      tokens: 1100,
      chargeMicro: 1400,
      bill: paidBill(account, requestId, 6000, 1000, 100, 1400),
    });
    let plain: Redis;
    beforeAll(() => {
      plain = new Redis(testRedis.url);
    });
    afterAll(() => plain.disconnect());

    it("keeps each hold also where the previous release's finish releases it, and takes away the expiry that release gave the records", async () => {
      const keys = redisKeys(layout, testRedis.keyPrefix).account(account);
      await grantLine(stores.admission, account, 100_000);
      await stores.admission.admit(paidStep(account, 6000));
      await plain.pexpire(keys.admissions, 3_600_000);
      const step = paidStep(account, 5000);
      await stores.admission.admit(step);
      expect(await plain.pttl(keys.admissions)).toBe(-1);
      expect(await plain.hget(keys.previousReleaseHolds, step.requestId)).toBe('5000');
      expect(await plain.hget(keys.credit, 'hd')).toBe('11000');

      await stores.admission.finish(finishPaid(step.requestId));
      expect(await plain.hget(keys.previousReleaseHolds, step.requestId)).toBeNull();
      expect(await plain.hmget(keys.credit, 'hd', 'ch')).toEqual(['6000', '1400']);
    });

    it('releases at the finish a hold that only the previous release holds (a lease it recreated, with no record)', async () => {
      const keys = redisKeys(layout, testRedis.keyPrefix).account(account);
      await grantLine(stores.admission, account, 100_000);
      const step = paidStep(account, 6000);
      await stores.admission.admit(step);
      await plain.hdel(keys.admissions, step.requestId);

      expect(await stores.admission.finish(finishPaid(step.requestId))).toEqual({ released: true, repeated: false, shortfallMicro: 0 });
      expect(await plain.hmget(keys.credit, 'hd', 'ch')).toEqual(['0', '1400']);
      expect(await plain.hlen(keys.previousReleaseHolds)).toBe(0);
    });
  });

  it('rejects with StoreUnavailableError when Redis cannot be reached', async () => {
    const down = await openStores(layout, undefined, 'redis://127.0.0.1:1');
    await expect(down.admission.admit(paidStep(account, 1))).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(down.admission.returnLine(account)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(down.admission.idleLines(1, 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(down.admission.resurrect(paidStep(account, 1).lease, LEASE_TTL)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
