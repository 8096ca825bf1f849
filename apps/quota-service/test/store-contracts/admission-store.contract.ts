import { randomUUID } from 'node:crypto';
import {
  AdmissionStores,
  AdmissionStoresFactory,
  freePlaces,
  freeStep,
  grantLine,
  holdOf,
  isLeased,
  LEASE_TTL,
  MINUTE_START,
  paidStep,
  SETTINGS,
} from './admission-fixtures';

/**
 * The admission step (AdmissionStore.admit) every implementation must take identically, run
 * against each: the minute count, the credit line, the places and the lease (docs/api.md#rate-limits), all or
 * nothing, with the precedence 429 rate, then 402, then 429 concurrency. The clock is the test's.
 */
export function describeAdmissionContract(name: string, open: AdmissionStoresFactory): void {
  describe(`AdmissionStore.admit contract: ${name}`, () => {
    let nowMs = MINUTE_START;
    let s: AdmissionStores;
    let account: string;

    beforeAll(async () => {
      s = await open(SETTINGS, () => nowMs);
    });
    afterAll(() => s.limits.close());
    beforeEach(() => {
      account = `acct_${randomUUID()}`;
      nowMs = MINUTE_START + 15_000;
    });

    it('counts a paid request, holds its worst case, takes a place and starts its lease, together', async () => {
      await grantLine(s.admission, account, 10_000);
      const step = paidStep(account, 3000);
      const admitted = await s.admission.admit(step);
      expect(admitted).toEqual({
        outcome: 'admitted',
        repeated: false,
        admittedAtMs: nowMs,
        count: { allowed: true, count: 1, limit: 30, resetUnixSeconds: MINUTE_START / 1000 + 60, retryAfterSeconds: 45, nowMs },
      });
      expect(await s.admission.credit(account)).toEqual({ granted: 10_000, charged: 0, returned: 0, held: 3000 });
      expect(await isLeased(s.leases, step.lease)).toBe(true);
      expect(await freePlaces(s.limits, account)).toBe(2);
      expect((await s.limits.countRequest(account)).count).toBe(2);
    });

    it('answers rate-limited past 30 in the clock minute, writing nothing, and counts a nocount step never', async () => {
      await grantLine(s.admission, account, 1_000_000);
      for (let i = 1; i <= 30; i++)
        expect((await s.admission.admit(paidStep(account, 10))).count).toMatchObject({ allowed: true, count: i });
      const before = await s.admission.credit(account);
      const refused = paidStep(account, 10);
      expect(await s.admission.admit(refused)).toEqual({
        outcome: 'rate-limited',
        count: { allowed: false, count: 30, limit: 30, resetUnixSeconds: MINUTE_START / 1000 + 60, retryAfterSeconds: 45, nowMs },
      });
      expect(await s.admission.credit(account)).toEqual(before);
      expect(await isLeased(s.leases, refused.lease)).toBe(false);
      expect((await s.admission.admit(freeStep(account))).count).toMatchObject({ allowed: true, count: 30 });
      nowMs = MINUTE_START + 60_000;
      expect((await s.admission.admit(paidStep(account, 10))).count).toMatchObject({ allowed: true, count: 1 });
    });

    it('shares the minute with CountRequest (the chat product and refused bodies)', async () => {
      for (let i = 0; i < 29; i++) await s.limits.countRequest(account);
      expect(await s.admission.admit(freeStep(account, { mode: 'count' }))).toMatchObject({ outcome: 'admitted', count: { count: 30 } });
      expect(await s.limits.countRequest(account)).toMatchObject({ allowed: false, count: 30 });
    });

    it('answers not-covered with the line totals when the unheld line is short, writing only the count', async () => {
      await grantLine(s.admission, account, 5000);
      await s.admission.admit(paidStep(account, 3000));
      const short = paidStep(account, 2001);
      expect(await s.admission.admit(short)).toEqual({
        outcome: 'not-covered',
        count: expect.objectContaining({ allowed: true, count: 2 }),
        credit: { granted: 5000, charged: 0, returned: 0, held: 3000 },
      });
      expect(await s.admission.credit(account)).toEqual({ granted: 5000, charged: 0, returned: 0, held: 3000 });
      expect(await isLeased(s.leases, short.lease)).toBe(false);
      expect(await freePlaces(s.limits, account)).toBe(2);
      expect(await s.admission.admit(paidStep(account, 2000))).toMatchObject({ outcome: 'admitted' });
    });

    it('takes the larger of each total when billing-service gives its own, and keeps its own when larger', async () => {
      await grantLine(s.admission, account, 5000);
      const merged = await s.admission.admit(paidStep(account, 9000, { merge: { granted: 4000, charged: 700, returned: 300 } }));
      expect(merged).toMatchObject({ outcome: 'not-covered', credit: { granted: 5000, charged: 700, returned: 300, held: 0 } });
      expect(
        await s.admission.admit(paidStep(account, 9000, { mode: 'nocount', merge: { granted: 10_000, charged: 0, returned: 0 } })),
      ).toMatchObject({
        outcome: 'admitted',
      });
      expect(await s.admission.credit(account)).toEqual({ granted: 10_000, charged: 700, returned: 300, held: 9000 });
    });

    it('checks the rate first, then the line, then the places', async () => {
      for (let i = 0; i < 3; i++)
        expect(await s.admission.admit(freeStep(account, { mode: 'count' }))).toMatchObject({ outcome: 'admitted' });
      await grantLine(s.admission, account, 1000);
      expect(await s.admission.admit(paidStep(account, 1001))).toMatchObject({ outcome: 'not-covered' });
      const noPlace = paidStep(account, 1000);
      expect(await s.admission.admit(noPlace)).toMatchObject({ outcome: 'no-place', placeLimit: 3, count: { count: 5 } });
      expect(await s.admission.credit(account)).toMatchObject({ held: 0 });
      expect(await isLeased(s.leases, noPlace.lease)).toBe(false);
      for (let i = 0; i < 25; i++) await s.limits.countRequest(account);
      expect(await s.admission.admit(paidStep(account, 1001))).toMatchObject({ outcome: 'rate-limited' });
    });

    it('clears the places 130 s after the last grant; a refusal does not move it', async () => {
      for (let i = 0; i < 3; i++) await s.admission.admit(freeStep(account));
      nowMs += 129_999;
      expect(await s.admission.admit(freeStep(account))).toMatchObject({ outcome: 'no-place' });
      nowMs += 1;
      expect(await s.admission.admit(freeStep(account))).toMatchObject({ outcome: 'admitted' });
      expect(await s.limits.acquirePlace(account, 'chat-turn')).toEqual({ granted: true, limit: 3 });
    });

    it('answers admitted again for a request id admitted already, counted and held once', async () => {
      await grantLine(s.admission, account, 10_000);
      const step = paidStep(account, 3000);
      await s.admission.admit(step);
      expect(await s.admission.admit(step)).toMatchObject({
        outcome: 'admitted',
        repeated: true,
        repeatedHoldMicro: 3000,
        count: { count: 1 },
      });
      expect(await s.admission.credit(account)).toMatchObject({ held: 3000 });
      const free = freeStep(account, { mode: 'count' });
      await s.admission.admit(free);
      expect(await s.admission.admit({ ...free, payment: 'paid', worstMicro: 1 })).toEqual({
        outcome: 'admitted',
        repeated: true,
        repeatedHoldMicro: undefined,
        admittedAtMs: nowMs,
        count: expect.objectContaining({ count: 2 }),
      });
    });

    it('fixes the terms and time of each admission once: a repeat, even at another clock, answers the first time; the record goes with an ordinary finish', async () => {
      await grantLine(s.admission, account, 10_000);
      const step = paidStep(account, 3000);
      const admittedAt = nowMs;
      expect(await s.admission.admit(step)).toMatchObject({ admittedAtMs: admittedAt });
      nowMs += 5000;
      expect(await s.admission.admit({ ...step, worstMicro: 1, lease: { ...step.lease, hold: holdOf(1) } })).toMatchObject({
        repeated: true,
        admittedAtMs: admittedAt,
      });
      expect(await s.admission.terms(step)).toEqual({
        payment: 'paid',
        model: 'vendor-v4-flash',
        hold: holdOf(3000),
        maxTokens: 1000,
        admittedAtMs: admittedAt,
      });
      const free = freeStep(account);
      await s.admission.admit(free);
      expect(await s.admission.terms(free)).toEqual({ payment: 'free', model: 'vendor-v4-flash', maxTokens: 1000, admittedAtMs: nowMs });
      expect(await s.admission.terms({ accountId: account, requestId: 'never' })).toBeUndefined();
      await s.admission.finish({
        accountId: account,
        requestId: step.requestId,
        admitted: true,
        payment: 'paid',
        tokens: 10,
        usageEstimated: false,
        lapsed: false,
        chargeMicro: 30,
        bill: undefined,
      });
      expect(await s.admission.terms(step)).toBeUndefined();
    });

    it('answers gone, counted but nothing taken, for a request id its edge finished first', async () => {
      await grantLine(s.admission, account, 10_000);
      const late = paidStep(account, 3000);
      await s.admission.finish({
        accountId: account,
        requestId: late.requestId,
        admitted: false,
        usageEstimated: false,
        lapsed: false,
        payment: 'paid',
        tokens: 0,
        chargeMicro: 0,
        bill: undefined,
      });
      expect(await s.admission.admit(late)).toMatchObject({ outcome: 'gone', count: { count: 1 } });
      expect(await s.admission.credit(account)).toMatchObject({ held: 0 });
      expect(await isLeased(s.leases, late.lease)).toBe(false);
      expect(await freePlaces(s.limits, account)).toBe(3);
    });

    it('holds no more than the line and places no more than 3 when 50 arrive at once, and counts 30', async () => {
      await grantLine(s.admission, account, 2500);
      const answers = await Promise.all(Array.from({ length: 50 }, () => s.admission.admit(paidStep(account, 1000))));
      const outcomes = answers.map((a) => a.outcome);
      expect(outcomes.filter((o) => o === 'rate-limited')).toHaveLength(20);
      expect(outcomes.filter((o) => o === 'admitted')).toHaveLength(2);
      expect(outcomes.filter((o) => o === 'not-covered')).toHaveLength(28);
      expect(
        answers
          .filter((a) => a.count.allowed)
          .map((a) => a.count.count)
          .sort((x, y) => x - y),
      ).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      expect(await s.admission.credit(account)).toMatchObject({ held: 2000 });
    });

    it('starts the lease with its lapse a lease time away', async () => {
      const step = freeStep(account);
      await s.admission.admit(step);
      nowMs += LEASE_TTL - 1;
      expect((await s.leases.claimLapsed(1000, 60_000)).some((l) => l.requestId === step.requestId)).toBe(false);
      nowMs += 1;
      expect((await s.leases.claimLapsed(1000, 60_000)).find((l) => l.requestId === step.requestId)).toEqual(step.lease);
    });
  });
}
