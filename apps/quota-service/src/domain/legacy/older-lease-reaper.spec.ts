import { status } from '@grpc/grpc-js';
import { createLogger, RpcError } from '@gw/service-kit';
import { SETTINGS } from '../../../test/store-contracts/admission-fixtures';
import { InMemoryAdmissionStore } from '../../store/admission/in-memory-admission-store';
import { InMemoryFreeTierStore } from '../../store/free-tier/in-memory-free-tier-store';
import { InMemoryLeaseStore } from '../../store/leases/in-memory-lease-store';
import { InMemoryLimitStore } from '../../store/limits/in-memory-limit-store';
import { InMemoryBillOutbox } from '../../store/outbox/in-memory-bill-outbox';
import { EVENING, TEST_DEFAULTS } from '../../../test/store-contracts/free-tier-fixtures';
import { OlderOutboxBill } from '../../store/outbox/bill-outbox';
import { LeaseReaper } from '../lease-reaper';
import { RequestFinisher } from '../request-finisher';
import { OlderRequestFinisher } from './older-request-finisher';
import { eventually } from '@gw/testing';

const TTL = 30_000;
const GRACE = 4 * TTL;
const OPTIONS = { intervalMs: 10, claimMs: TTL, batchSize: 50, graceMs: GRACE };

describe('LeaseReaper, leases of the older release', () => {
  let nowMs = EVENING;
  let limits: InMemoryLimitStore;
  let outbox: InMemoryBillOutbox;
  let leases: InMemoryLeaseStore;
  let finisher: OlderRequestFinisher;
  let admission: InMemoryAdmissionStore;
  let logged: string[];
  let reaper: LeaseReaper;
  const now = () => nowMs;
  const orphan = (requestId: string, overrides: Partial<OlderOutboxBill> = {}): OlderOutboxBill => ({
    requestId,
    accountId: 'a',
    model: 'vendor-v4-flash',
    payment: 'paid',
    promptTokens: 1000,
    completionTokens: 60,
    usageEstimated: true,
    ...overrides,
  });
  const queued = async () => (await outbox.claim(100)).map((c) => c.record as OlderOutboxBill);

  beforeEach(() => {
    nowMs = EVENING;
    limits = new InMemoryLimitStore(SETTINGS, now);
    outbox = new InMemoryBillOutbox();
    leases = new InMemoryLeaseStore(now);
    const freeTier = new InMemoryFreeTierStore(TEST_DEFAULTS, now);
    admission = new InMemoryAdmissionStore({ limits, freeTier, outbox, leases }, SETTINGS, now);
    const stores = { limits, freeTier, outbox, leases, admission };
    finisher = new OlderRequestFinisher(stores);
    logged = [];
    reaper = new LeaseReaper(
      leases,
      new RequestFinisher(stores, undefined, finisher),
      OPTIONS,
      createLogger('quota-service-test', 'info', (line) => logged.push(line)),
    );
  });
  afterEach(() => reaper.stop());

  it('finishes a request whose lease lapsed from its last renewal: bill queued (estimated), place freed, usage counted', async () => {
    await limits.acquirePlace('a', 'r1');
    await leases.start(orphan('r1'), TTL);
    nowMs += TTL - 1;
    expect(await reaper.reapOnce()).toBe(0);
    nowMs += 1;
    expect(await reaper.reapOnce()).toBe(1);
    expect(await queued()).toEqual([orphan('r1')]);
    expect(await limits.getUsage('a')).toEqual({ todayTokens: 1060, totalTokens: 1060 });
    expect(await limits.acquirePlace('a', 'r2')).toMatchObject({ granted: true });
    expect((await limits.finishRequest('a', 'r1', 0)).repeated).toBe(true);
    expect(logged.some((line) => line.includes('"billingId":"r1"'))).toBe(true);
    nowMs += 10 * TTL;
    expect(await reaper.reapOnce()).toBe(0);
  });

  it('hands a lease it could not finish out again after the claim time, and drops one refused for good with an error log', async () => {
    await leases.start(orphan('later'), TTL);
    await leases.start(orphan('bad', { model: '' }), TTL);
    nowMs += TTL;
    const finish = finisher.finish.bind(finisher);
    finisher.finish = async () => {
      throw new RpcError(status.UNAVAILABLE, 'store down');
    };
    expect(await reaper.reapOnce()).toBe(0);
    finisher.finish = finish;
    expect(await reaper.reapOnce()).toBe(0);
    nowMs += TTL;
    expect(await reaper.reapOnce()).toBe(1);
    expect((await queued()).map((r) => r.requestId)).toEqual(['later']);
    expect(logged.some((line) => line.includes('"level":"error"') && line.includes('"billingId":"bad"'))).toBe(true);
    nowMs += 10 * TTL;
    expect(await reaper.reapOnce()).toBe(0);
  });

  it('reaps on its timer until stopped', async () => {
    await leases.start(orphan('timed'), 0);
    reaper.start();
    const reaped = await eventually(queued, (records) => records.length > 0, { timeoutMs: 5000, intervalMs: 10 });
    expect(reaped.map((r) => r.requestId)).toEqual(['timed']);
  });
});
