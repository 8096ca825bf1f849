import { randomUUID } from 'node:crypto';
import { createLogger } from '@gw/service-kit';
import {
  AdmissionStores,
  AdmissionStoresFactory,
  freePlaces,
  freeStep,
  grantLine,
  holdOf,
  LEASE_TTL,
  MINUTE_START,
  outboxOf,
  paidBill,
  paidStep,
  SETTINGS,
} from './admission-fixtures';
import { LeaseReaper } from '../../src/domain/lease-reaper';
import { FinishReport, RequestFinisher } from '../../src/domain/request-finisher';
import { lapseShortfallMicro } from '../../src/quota-metrics';
import { AdmitStep } from '../../src/store/admission/admission-store';

const GRACE = 120_000;
const silent = createLogger('quota-service-test', 'error', () => undefined);
const shortfallSoFar = async () => (await lapseShortfallMicro.get()).values[0]?.value ?? 0;

/**
 * A lapse keeps what it holds (LeaseReaper over each store): a request whose lease lapsed keeps
 * its hold and place through the grace; its real finish inside the grace is an ordinary finish;
 * only at the grace's end is it charged the estimate of its last renewal, which a later real
 * finish corrects as far as the line carries, the rest a shortfall; usage follows the charge.
 */
export function describeLapseGraceContract(name: string, open: AdmissionStoresFactory): void {
  describe(`A lapse keeps what it holds: ${name}`, () => {
    let nowMs = MINUTE_START;
    let s: AdmissionStores;
    let account: string;
    let finisher: RequestFinisher;
    let reaper: LeaseReaper;

    /** Admits a paid request holding 6,000 and renews its lease as an edge would while 1,000 + 250 tokens are billable. */
    const admitRunning = async (requestId: string, worstMicro = 6000): Promise<AdmitStep> => {
      const step = paidStep(account, worstMicro, { requestId });
      expect(await s.admission.admit(step)).toMatchObject({ outcome: 'admitted' });
      expect(await s.leases.renew([{ ...step.lease, promptTokens: 1000, completionTokens: 250 }], LEASE_TTL)).toEqual([]);
      return step;
    };
    const realEnd = (requestId: string, completionTokens: number): FinishReport => ({
      requestId,
      accountId: account,
      model: 'vendor-v4-flash',
      payment: 'paid',
      promptTokens: 1000,
      completionTokens,
      usageEstimated: false,
      admitted: true,
      hold: holdOf(6000),
      endReason: 'complete',
      admittedAtMs: MINUTE_START,
    });
    const estimate = (requestId: string) => ({
      ...paidBill(account, requestId, 6000, 1000, 250, 2000),
      usageEstimated: true,
      endReason: 'recovered' as const,
      admittedAtMs: MINUTE_START,
    });

    beforeAll(async () => {
      s = await open(SETTINGS, () => nowMs);
      finisher = new RequestFinisher(s, silent);
      reaper = new LeaseReaper(s.leases, finisher, { intervalMs: 1000, claimMs: LEASE_TTL, batchSize: 1000, graceMs: GRACE }, silent);
    });
    afterAll(() => s.limits.close());
    beforeEach(() => {
      account = `acct_${randomUUID()}`;
      nowMs = MINUTE_START;
    });

    it('keeps a lapsed request its hold and place through the grace: no second request is covered, no fourth place given', async () => {
      await grantLine(s.admission, account, 9000);
      await admitRunning('stalled');
      for (const requestId of ['free-1', 'free-2']) await s.admission.admit(freeStep(account, { requestId }));
      nowMs += LEASE_TTL;
      await reaper.reapOnce();
      expect(await s.admission.credit(account)).toEqual({ granted: 9000, charged: 0, returned: 0, held: 6000 });
      expect(await s.admission.admit(paidStep(account, 6000, { mode: 'nocount' }))).toMatchObject({ outcome: 'not-covered' });
      expect(await s.admission.admit(freeStep(account))).toMatchObject({ outcome: 'no-place' });
      expect(await freePlaces(s.limits, account)).toBe(0);
      nowMs += GRACE - 1;
      await reaper.reapOnce();
      expect(await s.admission.credit(account)).toMatchObject({ charged: 0, held: 6000 });
      expect(await outboxOf(s.outbox, account)).toEqual([]);

      // The grace ends without a real finish: the estimate of its last renewal, the rest given back.
      nowMs += 1;
      await reaper.reapOnce();
      expect(await s.admission.credit(account)).toEqual({ granted: 9000, charged: 2000, returned: 0, held: 0 });
      expect(await outboxOf(s.outbox, account)).toEqual([estimate('stalled')]);
      expect(await s.limits.getUsage(account)).toEqual({ todayTokens: 1250, totalTokens: 1250 });
      // 150 s without a new place for the account: the 130-second place recovery (docs/api.md#rate-limits) has freed them all.
      expect(await freePlaces(s.limits, account)).toBe(3);
    });

    it('finishes a request whose edge comes back inside the grace as an ordinary finish: one charge, no estimate', async () => {
      await grantLine(s.admission, account, 10_000);
      await admitRunning('back');
      nowMs += LEASE_TTL;
      await reaper.reapOnce();
      nowMs += GRACE / 2;
      expect(await finisher.finishAdmitted(realEnd('back', 500))).toEqual({ released: true, repeated: false });
      nowMs += GRACE;
      await reaper.reapOnce();
      expect(await outboxOf(s.outbox, account)).toEqual([
        { ...paidBill(account, 'back', 6000, 1000, 500, 3000), endReason: 'complete', admittedAtMs: MINUTE_START },
      ]);
      expect(await s.admission.credit(account)).toEqual({ granted: 10_000, charged: 3000, returned: 0, held: 0 });
      expect(await s.limits.getUsage(account)).toEqual({ todayTokens: 1500, totalTokens: 1500 });
    });

    it('corrects the estimate with a real finish after the grace as far as the line carries, the rest a shortfall; usage follows', async () => {
      await grantLine(s.admission, account, 7000);
      await admitRunning('late');
      nowMs += LEASE_TTL;
      await reaper.reapOnce();
      nowMs += GRACE;
      await reaper.reapOnce();
      expect(await s.admission.credit(account)).toEqual({ granted: 7000, charged: 2000, returned: 0, held: 0 });
      // Another request holds 4,000 of the 5,000 left: the line's available part carries 1,000 of the
      // 4,000 the correction adds (3,000 is counted as shortfall); the totals move as billing-service
      // moves them, which charges all of it from the line's unheld 5,000.
      await admitRunning('next', 4000);
      const before = await shortfallSoFar();
      expect(await finisher.finishAdmitted(realEnd('late', 1250))).toEqual({ released: false, repeated: true });
      expect((await shortfallSoFar()) - before).toBe(3000);
      expect(await s.admission.credit(account)).toEqual({ granted: 7000, charged: 6000, returned: 0, held: 4000 });
      expect(await outboxOf(s.outbox, account)).toEqual([
        estimate('late'),
        { ...paidBill(account, 'late', 6000, 1000, 1250, 6000), endReason: 'complete', admittedAtMs: MINUTE_START },
      ]);
      expect(await s.limits.getUsage(account)).toEqual({ todayTokens: 2250, totalTokens: 2250 });
      // Once: a repeat changes nothing more.
      expect(await finisher.finishAdmitted(realEnd('late', 1250))).toEqual({ released: false, repeated: true });
      expect(await s.admission.credit(account)).toMatchObject({ charged: 6000 });
      expect(await s.limits.getUsage(account)).toEqual({ todayTokens: 2250, totalTokens: 2250 });
    });

    it('extends the line as billing-service does when a late correction is more than its unheld part, so that both keep one line', async () => {
      await grantLine(s.admission, account, 6000);
      await admitRunning('alone');
      nowMs += LEASE_TTL;
      await reaper.reapOnce();
      nowMs += GRACE;
      await reaper.reapOnce();
      expect(await s.admission.credit(account)).toEqual({ granted: 6000, charged: 2000, returned: 0, held: 0 });
      // The line's rest went back to billing-service; then the real bill comes, 4,000 more than the estimate.
      expect(await s.admission.returnLine(account)).toMatchObject({ returnedMicro: 4000 });
      expect(await finisher.finishAdmitted(realEnd('alone', 1250))).toEqual({ released: false, repeated: true });
      expect(await s.admission.credit(account)).toEqual({ granted: 10_000, charged: 6000, returned: 4000, held: 0 });
    });
  });
}
