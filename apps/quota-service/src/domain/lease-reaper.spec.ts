import { createLogger } from '@gw/service-kit';
import { grantLine, paidBill, paidStep, SETTINGS } from '../../test/store-contracts/admission-fixtures';
import { InMemoryAdmissionStore } from '../store/admission/in-memory-admission-store';
import { InMemoryFreeTierStore } from '../store/free-tier/in-memory-free-tier-store';
import { InMemoryLeaseStore } from '../store/leases/in-memory-lease-store';
import { InMemoryLimitStore } from '../store/limits/in-memory-limit-store';
import { InMemoryBillOutbox } from '../store/outbox/in-memory-bill-outbox';
import { EVENING, TEST_DEFAULTS } from '../../test/store-contracts/free-tier-fixtures';
import { RequestUsage } from '../store/outbox/bill-outbox';
import { LeaseReaper } from './lease-reaper';
import { RequestFinisher } from './request-finisher';

const TTL = 30_000;
const GRACE = 4 * TTL;
const OPTIONS = { intervalMs: 10, claimMs: TTL, batchSize: 50, graceMs: GRACE };

describe('LeaseReaper', () => {
  let nowMs = EVENING;
  let limits: InMemoryLimitStore;
  let outbox: InMemoryBillOutbox;
  let leases: InMemoryLeaseStore;
  let finisher: RequestFinisher;
  let admission: InMemoryAdmissionStore;
  let logged: string[];
  let reaper: LeaseReaper;
  const now = () => nowMs;
  const queued = async () => (await outbox.claim(100)).map((c) => c.record as RequestUsage);

  beforeEach(() => {
    nowMs = EVENING;
    limits = new InMemoryLimitStore(SETTINGS, now);
    outbox = new InMemoryBillOutbox();
    leases = new InMemoryLeaseStore(now);
    const freeTier = new InMemoryFreeTierStore(TEST_DEFAULTS, now);
    admission = new InMemoryAdmissionStore({ limits, freeTier, outbox, leases }, SETTINGS, now);
    finisher = new RequestFinisher({ limits, freeTier, outbox, leases, admission });
    logged = [];
    reaper = new LeaseReaper(
      leases,
      finisher,
      OPTIONS,
      createLogger('quota-service-test', 'info', (line) => logged.push(line)),
    );
  });
  afterEach(() => reaper.stop());

  it("bills a lapsed paid lease of Admit once the grace ends, charged at its hold's prices from its last renewal (estimated), its hold back in the line", async () => {
    await grantLine(admission, 'a', 100_000);
    const step = paidStep('a', 6000, { requestId: 'admitted' });
    await admission.admit(step);
    const renewal = { ...step.lease, promptTokens: 1000, completionTokens: 250 };
    await leases.renew([renewal], TTL);
    nowMs += TTL;
    expect(await reaper.reapOnce()).toBe(0);
    expect(await admission.credit('a')).toMatchObject({ charged: 0, held: 6000 });
    expect(logged.some((line) => line.includes('keeps its hold and place') && line.includes('"billingId":"admitted"'))).toBe(true);
    nowMs += GRACE;
    expect(await reaper.reapOnce()).toBe(1);
    nowMs += 10 * TTL;
    expect(await reaper.reapOnce()).toBe(0);
    expect(await queued()).toEqual([
      { ...paidBill('a', 'admitted', 6000, 1000, 250, 2000), usageEstimated: true, endReason: 'recovered', admittedAtMs: EVENING },
    ]);
    expect(await admission.credit('a')).toEqual({ granted: 100_000, charged: 2000, returned: 0, held: 0 });
    expect(await limits.getUsage('a')).toEqual({ todayTokens: 1250, totalTokens: 1250 });
  });
});
