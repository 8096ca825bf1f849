import { randomUUID } from 'node:crypto';
import {
  admittedLease,
  AdmissionStores,
  AdmissionStoresFactory,
  freePlaces,
  freeStep,
  grantLine,
  holdOf,
  isLeased,
  LEASE_TTL,
  MINUTE_START,
  outboxOf,
  paidBill,
  paidStep,
  SETTINGS,
} from './admission-fixtures';
import { FinishStep } from '../../src/store/admission/admission-store';
import { OutboxBill, NO_HOLD } from '../../src/store/outbox/bill-outbox';

/**
 * The end of an admitted request, the return of a line and the resurrection of a lost lease
 * (AdmissionStore.finish, returnLine, idleLines, resurrect), run against each implementation.
 */
export function describeAdmittedFinishContract(name: string, open: AdmissionStoresFactory): void {
  describe(`AdmissionStore finish, lines and resurrection contract: ${name}`, () => {
    let nowMs = MINUTE_START;
    let s: AdmissionStores;
    let account: string;
    const paidFinish = (
      requestId: string,
      tokens: number,
      chargeMicro: number,
      bill: OutboxBill | undefined,
      usage: Partial<FinishStep> = {},
    ): FinishStep => ({
      accountId: account,
      requestId,
      admitted: true,
      payment: 'paid',
      tokens,
      usageEstimated: false,
      lapsed: false,
      chargeMicro,
      bill,
      ...usage,
    });

    // A bill queued without its admitted time gets its admission's (every test admits at MINUTE_START).
    const stamped = <T extends OutboxBill>(bill: T): T => ({ ...bill, admittedAtMs: MINUTE_START });

    beforeAll(async () => {
      s = await open(SETTINGS, () => nowMs);
    });
    afterAll(() => s.limits.close());
    beforeEach(() => {
      account = `acct_${randomUUID()}`;
      nowMs = MINUTE_START;
    });

    it('reads what running requests hold (GetHeld): nothing for an account never seen, each running hold, none once they finish', async () => {
      expect((await s.admission.credit(account)).held).toBe(0);
      await grantLine(s.admission, account, 10_000);
      const [first, second] = [paidStep(account, 6000), paidStep(account, 2500)];
      await s.admission.admit(first);
      await s.admission.admit(second);
      await s.admission.admit(freeStep(account));
      expect((await s.admission.credit(account)).held).toBe(8500);
      await s.admission.finish(paidFinish(first.requestId, 1500, 3000, paidBill(account, first.requestId, 6000, 1000, 500, 3000)));
      expect((await s.admission.credit(account)).held).toBe(2500);
      await s.admission.finish(paidFinish(second.requestId, 0, 0, undefined, { admitted: false }));
      expect((await s.admission.credit(account)).held).toBe(0);
      expect((await s.admission.credit(`acct_${randomUUID()}`)).held).toBe(0);
    });

    it('turns the hold into its charge once: the rest back in the line, place freed, usage counted, lease ended, bill queued', async () => {
      await grantLine(s.admission, account, 10_000);
      const step = paidStep(account, 6000);
      await s.admission.admit(step);
      const bill = paidBill(account, step.requestId, 6000, 1000, 500, 3000);
      expect(await s.admission.finish(paidFinish(step.requestId, 1500, 3000, bill))).toEqual({
        released: true,
        repeated: false,
        shortfallMicro: 0,
      });
      expect(await s.admission.credit(account)).toEqual({ granted: 10_000, charged: 3000, returned: 0, held: 0 });
      expect(await s.limits.getUsage(account)).toEqual({ todayTokens: 1500, totalTokens: 1500 });
      expect(await isLeased(s.leases, step.lease)).toBe(false);
      expect(await freePlaces(s.limits, account)).toBe(3);
      expect(await outboxOf(s.outbox, account)).toEqual([stamped(bill)]);

      expect(await s.admission.finish(paidFinish(step.requestId, 1500, 3000, bill))).toEqual({
        released: false,
        repeated: true,
        shortfallMicro: 0,
      });
      expect(await s.admission.credit(account)).toEqual({ granted: 10_000, charged: 3000, returned: 0, held: 0 });
      expect(await s.limits.getUsage(account)).toEqual({ todayTokens: 1500, totalTokens: 1500 });
      expect(await outboxOf(s.outbox, account)).toEqual([stamped(bill)]);
    });

    it("names in the bill the key its admission recorded (a term, not the finish's); an older edge's admission, without one, bills none", async () => {
      await grantLine(s.admission, account, 10_000);
      const [keyed, older] = [paidStep(account, 3000, { keyId: 'key_0a1b-2.c:d' }), paidStep(account, 3000)];
      await s.admission.admit(keyed);
      await s.admission.admit(older);
      expect(await s.admission.terms(keyed)).toMatchObject({ keyId: 'key_0a1b-2.c:d' });
      expect(await s.admission.terms(older)).not.toHaveProperty('keyId');
      const restated = { payment: 'paid' as const, model: 'vendor-v4-flash', hold: holdOf(3000) };
      const [b1, b2] = [paidBill(account, keyed.requestId, 3000, 100, 100, 500), paidBill(account, older.requestId, 3000, 100, 100, 500)];
      await s.admission.finish(paidFinish(keyed.requestId, 200, 500, b1, { restated }));
      await s.admission.finish(paidFinish(older.requestId, 200, 500, b2, { restated }));
      expect(await outboxOf(s.outbox, account)).toEqual([{ ...stamped(b1), keyId: 'key_0a1b-2.c:d' }, stamped(b2)]);
    });

    it('refuses a finish whose restated terms disagree with its admission, changing nothing, and takes one that agrees', async () => {
      await grantLine(s.admission, account, 10_000);
      const step = paidStep(account, 6000);
      await s.admission.admit(step);
      const forged = paidBill(account, step.requestId, 1, 1000, 500, 1);
      const restated = { payment: 'paid' as const, model: 'vendor-v4-flash', hold: holdOf(6000) };
      const attempts: [Partial<FinishStep>, string][] = [
        [{ restated: { ...restated, hold: { amountMicro: 6000, inputMicroPerMillion: 0, outputMicroPerMillion: 0 } } }, 'hold'],
        [{ restated: { ...restated, hold: holdOf(1) } }, 'hold'],
        [{ restated: { ...restated, payment: 'free', hold: undefined }, payment: 'free' }, 'payment'],
        [{ restated: { ...restated, model: 'vendor-v4-pro' } }, 'model'],
        [{ restated: { ...restated, admittedAtMs: MINUTE_START - 100 * 86_400_000 } }, 'admitted_at'],
      ];
      for (const [overrides, field] of attempts)
        expect(await s.admission.finish(paidFinish(step.requestId, 1500, 1, forged, overrides))).toEqual({
          released: false,
          repeated: false,
          shortfallMicro: 0,
          refused: field,
        });
      expect(await s.admission.credit(account)).toEqual({ granted: 10_000, charged: 0, returned: 0, held: 6000 });
      expect(await outboxOf(s.outbox, account)).toEqual([]);
      expect(await isLeased(s.leases, step.lease)).toBe(true);
      const bill = paidBill(account, step.requestId, 6000, 1000, 500, 3000);
      expect(
        await s.admission.finish(paidFinish(step.requestId, 1500, 3000, bill, { restated: { ...restated, admittedAtMs: MINUTE_START } })),
      ).toEqual({
        released: true,
        repeated: false,
        shortfallMicro: 0,
      });
      expect(await outboxOf(s.outbox, account)).toEqual([stamped(bill)]);
    });

    it('gives the whole hold back and queues no bill for a paid request with nothing to bill', async () => {
      await grantLine(s.admission, account, 10_000);
      const step = paidStep(account, 6000);
      await s.admission.admit(step);
      await s.admission.finish(paidFinish(step.requestId, 0, 0, undefined));
      expect(await s.admission.credit(account)).toEqual({ granted: 10_000, charged: 0, returned: 0, held: 0 });
      expect(await outboxOf(s.outbox, account)).toEqual([]);
    });

    it("settles a free request's reservation with its tokens and queues its bill", async () => {
      const step = freeStep(account);
      await s.freeTier.reserve({
        accountId: account,
        requestId: step.requestId,
        tokens: 3000,
        dailyTokens: 200_000,
        poolTokens: 50_000_000,
        ttlMs: 900_000,
      });
      await s.admission.admit(step);
      const bill: OutboxBill = { ...paidBill(account, step.requestId, 0, 100, 20, 0), payment: 'free' };
      await s.admission.finish({
        accountId: account,
        requestId: step.requestId,
        admitted: true,
        usageEstimated: false,
        lapsed: false,
        payment: 'free',
        tokens: 120,
        chargeMicro: 0,
        bill,
      });
      expect(await s.freeTier.allowanceUsed(account)).toBe(120);
      expect(await outboxOf(s.outbox, account)).toEqual([stamped(bill)]);
      expect(await s.admission.credit(account)).toEqual({ granted: 0, charged: 0, returned: 0, held: 0 });
    });

    it('refuses "never admitted" for a request whose edge renewed it with Admit\'s answer, changing nothing', async () => {
      await grantLine(s.admission, account, 10_000);
      const step = paidStep(account, 6000);
      await s.admission.admit(step);
      // The edge's renewal carries the admitted time: it had the answer, and its reply began.
      await s.leases.renew([{ ...step.lease, promptTokens: 1000, completionTokens: 400, admittedAtMs: MINUTE_START }], 30_000);
      const abandon: FinishStep = {
        accountId: account,
        requestId: step.requestId,
        admitted: false,
        usageEstimated: false,
        lapsed: false,
        payment: 'paid',
        tokens: 0,
        chargeMicro: 0,
        bill: undefined,
      };
      expect(await s.admission.finish(abandon)).toEqual({ released: false, repeated: false, shortfallMicro: 0, refused: 'admitted' });
      expect(await s.admission.credit(account)).toEqual({ granted: 10_000, charged: 0, returned: 0, held: 6000 });
      expect(await isLeased(s.leases, step.lease)).toBe(true);
      const bill = paidBill(account, step.requestId, 6000, 1000, 500, 3000);
      expect(await s.admission.finish(paidFinish(step.requestId, 1500, 3000, bill))).toEqual({
        released: true,
        repeated: false,
        shortfallMicro: 0,
      });
      expect(await s.admission.credit(account)).toEqual({ granted: 10_000, charged: 3000, returned: 0, held: 0 });
    });

    it('gives back all an admission took when its edge never had the answer, bills nothing, and refuses the id after', async () => {
      await grantLine(s.admission, account, 10_000);
      const paid = paidStep(account, 6000);
      const free = freeStep(account);
      await s.freeTier.reserve({
        accountId: account,
        requestId: free.requestId,
        tokens: 3000,
        dailyTokens: 200_000,
        poolTokens: 50_000_000,
        ttlMs: 900_000,
      });
      await s.admission.admit(paid);
      await s.admission.admit(free);
      for (const step of [paid, free]) {
        const abandon = {
          accountId: account,
          requestId: step.requestId,
          admitted: false,
          usageEstimated: false,
          lapsed: false,
          payment: step.payment,
          tokens: 0,
          chargeMicro: 0,
          bill: undefined,
        };
        expect(await s.admission.finish(abandon)).toEqual({ released: true, repeated: false, shortfallMicro: 0 });
        expect(await s.admission.finish(abandon)).toEqual({ released: false, repeated: true, shortfallMicro: 0 });
        expect(await isLeased(s.leases, step.lease)).toBe(false);
        expect(await s.admission.admit(step)).toMatchObject({ outcome: 'gone' });
      }
      expect(await s.admission.credit(account)).toEqual({ granted: 10_000, charged: 0, returned: 0, held: 0 });
      expect(await s.freeTier.allowanceUsed(account)).toBe(0);
      expect(await s.limits.getUsage(account)).toEqual({ todayTokens: 0, totalTokens: 0 });
      expect(await outboxOf(s.outbox, account)).toEqual([]);
      expect(await freePlaces(s.limits, account)).toBe(3);
    });

    it("bills an admitted request the store lost from the edge's hold, leaving what is held alone", async () => {
      await grantLine(s.admission, account, 10_000);
      await s.admission.admit(paidStep(account, 2000));
      const bill = paidBill(account, 'lost-admission', 6000, 1000, 0, 1000);
      expect(await s.admission.finish(paidFinish('lost-admission', 1000, 1000, bill))).toEqual({
        released: false,
        repeated: false,
        shortfallMicro: 0,
      });
      expect(await s.admission.credit(account)).toEqual({ granted: 10_000, charged: 1000, returned: 0, held: 2000 });
      expect(await outboxOf(s.outbox, account)).toEqual([bill]);
    });

    it('recreates a lost lease from its renewal, taking no place but holding its hold in the line again, and bills it once', async () => {
      await grantLine(s.admission, account, 10_000);
      const lost = { ...admittedLease(account, `req_${randomUUID()}`, holdOf(6000)), promptTokens: 1000 };
      expect(await s.admission.resurrect(lost, LEASE_TTL)).toBe('resurrected');
      expect(await s.admission.resurrect(lost, LEASE_TTL)).toBe('exists');
      expect(await isLeased(s.leases, lost)).toBe(true);
      expect(await freePlaces(s.limits, account)).toBe(3);
      expect(await s.admission.credit(account)).toMatchObject({ held: 6000 });
      // The line's unheld part only can be given back while it runs.
      expect(await s.admission.returnLine(account)).toMatchObject({ returnedMicro: 4000, heldMicro: 6000 });
      nowMs += LEASE_TTL;
      expect((await s.leases.claimLapsed(1000, 60_000)).find((l) => l.requestId === lost.requestId)).toEqual(lost);

      const bill = paidBill(account, lost.requestId, 6000, 1000, 0, 1000);
      await s.admission.finish(paidFinish(lost.requestId, 1000, 1000, bill));
      await s.admission.finish(paidFinish(lost.requestId, 1000, 1000, bill));
      expect(await s.admission.credit(account)).toEqual({ granted: 10_000, charged: 1000, returned: 4000, held: 0 });
      expect(await outboxOf(s.outbox, account)).toEqual([{ kind: 'return', accountId: account, returnedTotalMicro: 4000 }, bill]);
      expect(await s.admission.resurrect(lost, LEASE_TTL)).toBe('finished');
      expect(await isLeased(s.leases, lost)).toBe(false);
    });

    it('queues the real bill of a request the reaper finished from an estimate, charging the line only what it adds', async () => {
      await grantLine(s.admission, account, 100_000);
      for (const requestId of ['lapsed-up', 'lapsed-down', 'lapsed-twice']) await s.admission.admit(paidStep(account, 6000, { requestId }));
      const estimate = (requestId: string) => ({ ...paidBill(account, requestId, 6000, 1000, 250, 2000), usageEstimated: true });
      for (const requestId of ['lapsed-up', 'lapsed-down', 'lapsed-twice']) {
        expect(
          await s.admission.finish(paidFinish(requestId, 1250, 2000, estimate(requestId), { usageEstimated: true, lapsed: true })),
        ).toEqual({ released: true, repeated: false, shortfallMicro: 0 });
      }
      const real = (requestId: string, completion: number, charge: number) => paidBill(account, requestId, 6000, 1000, completion, charge);
      expect(await s.admission.finish(paidFinish('lapsed-up', 1500, 3000, real('lapsed-up', 500, 3000)))).toEqual({
        released: false,
        repeated: true,
        shortfallMicro: 0,
      });
      expect(await s.admission.finish(paidFinish('lapsed-down', 1100, 1400, real('lapsed-down', 100, 1400)))).toEqual({
        released: false,
        repeated: true,
        shortfallMicro: 0,
      });
      // Again, or an estimate of the edge's own: nothing more.
      await s.admission.finish(paidFinish('lapsed-up', 1500, 3000, real('lapsed-up', 500, 3000)));
      await s.admission.finish(
        paidFinish('lapsed-twice', 1600, 3400, { ...real('lapsed-twice', 600, 3400), usageEstimated: true }, { usageEstimated: true }),
      );
      expect(await s.admission.credit(account)).toEqual({ granted: 100_000, charged: 6000 + 1000, returned: 0, held: 0 });
      expect(await outboxOf(s.outbox, account)).toEqual(
        [
          estimate('lapsed-up'),
          estimate('lapsed-down'),
          estimate('lapsed-twice'),
          real('lapsed-up', 500, 3000),
          real('lapsed-down', 100, 1400),
        ].map(stamped),
      );
      // Usage follows the charge: each real bill moves it by its tokens beyond the estimate's (+250, -150).
      expect(await s.limits.getUsage(account)).toEqual({ todayTokens: 3 * 1250 + 100, totalTokens: 3 * 1250 + 100 });
    });

    it('queues the real bill of a free request the reaper finished from an estimate, also one of nothing, once', async () => {
      const lapsed = freeStep(account);
      const empty = freeStep(account);
      for (const step of [lapsed, empty]) await s.admission.admit(step);
      const freeBill = (requestId: string, completion: number, usageEstimated: boolean): OutboxBill => ({
        kind: 'bill',
        requestId,
        accountId: account,
        model: 'vendor-v4-flash',
        payment: 'free',
        promptTokens: 100,
        completionTokens: completion,
        usageEstimated,
        hold: NO_HOLD,
        chargeMicro: 0,
      });
      const freeFinish = (requestId: string, tokens: number, bill: OutboxBill | undefined, usage: Partial<FinishStep>): FinishStep => ({
        accountId: account,
        requestId,
        admitted: true,
        usageEstimated: false,
        lapsed: false,
        payment: 'free',
        tokens,
        chargeMicro: 0,
        bill,
        ...usage,
      });
      // The reaper: one had a part of its reply (an estimate billed), the other nothing yet (no bill).
      const estimate = freeBill(lapsed.requestId, 20, true);
      await s.admission.finish(freeFinish(lapsed.requestId, 120, estimate, { usageEstimated: true, lapsed: true }));
      await s.admission.finish(freeFinish(empty.requestId, 0, undefined, { usageEstimated: true, lapsed: true }));
      // Their edges, late, with the usage the provider reported: each bill queued once.
      const real = [freeBill(lapsed.requestId, 60, false), freeBill(empty.requestId, 40, false)];
      for (const bill of [...real, ...real])
        expect(await s.admission.finish(freeFinish(bill.requestId, 100 + bill.completionTokens, bill, {}))).toEqual({
          released: false,
          repeated: true,
          shortfallMicro: 0,
        });
      expect(await outboxOf(s.outbox, account)).toEqual([estimate, ...real].map(stamped));
      expect(await s.admission.credit(account)).toEqual({ granted: 0, charged: 0, returned: 0, held: 0 });
    });

    it("tells a finished request's bill pending until the outbox acknowledges it, then applied; one with nothing to bill applied; one it has no finish of unfinished", async () => {
      await grantLine(s.admission, account, 10_000);
      const billed = paidStep(account, 3000);
      const empty = paidStep(account, 3000);
      const free = freeStep(account);
      for (const step of [billed, empty, free]) await s.admission.admit(step);
      expect((await s.admission.billStates([billed.lease]))[0]).toBe('unfinished');
      const bill = paidBill(account, billed.requestId, 3000, 1000, 0, 1000);
      const freeBill: OutboxBill = { ...paidBill(account, free.requestId, 0, 100, 20, 0), payment: 'free' };
      await s.admission.finish(paidFinish(billed.requestId, 1000, 1000, bill));
      await s.admission.finish(paidFinish(empty.requestId, 0, 0, undefined));
      await s.admission.finish({
        accountId: account,
        requestId: free.requestId,
        admitted: true,
        usageEstimated: false,
        lapsed: false,
        payment: 'free',
        tokens: 120,
        chargeMicro: 0,
        bill: freeBill,
      });
      expect((await s.admission.billStates([billed.lease]))[0]).toBe('pending');
      expect((await s.admission.billStates([free.lease]))[0]).toBe('pending');
      expect((await s.admission.billStates([empty.lease]))[0]).toBe('applied');
      expect((await s.admission.billStates([{ accountId: account, requestId: 'never-seen' }]))[0]).toBe('unfinished');
      // Many at once, across accounts (and shards), answered in their order.
      const elsewhere = { accountId: `${account}-other`, requestId: 'never-seen-either' };
      expect(await s.admission.billStates([empty.lease, elsewhere, billed.lease, free.lease])).toEqual([
        'applied',
        'unfinished',
        'pending',
        'pending',
      ]);
      expect(await s.admission.billStates([])).toEqual([]);

      const claimed = (await s.outbox.claim(10_000)).filter((c) => c.record.accountId === account);
      expect(claimed.map((c) => c.record)).toEqual([bill, freeBill].map(stamped));
      await s.outbox.ack([claimed[0].id]);
      expect((await s.admission.billStates([billed.lease]))[0]).toBe('applied');
      expect((await s.admission.billStates([free.lease]))[0]).toBe('pending');
      await s.outbox.ack([claimed[1].id]);
      expect((await s.admission.billStates([free.lease]))[0]).toBe('applied');
      // A repeat of the finish queues nothing and marks nothing.
      await s.admission.finish(paidFinish(billed.requestId, 1000, 1000, bill));
      expect((await s.admission.billStates([billed.lease]))[0]).toBe('applied');
      expect(await outboxOf(s.outbox, account)).toEqual([]);
    });

    it('marks the real bill that corrects a lapse estimate pending until acknowledged', async () => {
      await grantLine(s.admission, account, 10_000);
      const step = paidStep(account, 6000);
      await s.admission.admit(step);
      const estimate = { ...paidBill(account, step.requestId, 6000, 1000, 250, 2000), usageEstimated: true };
      await s.admission.finish(paidFinish(step.requestId, 1250, 2000, estimate, { usageEstimated: true, lapsed: true }));
      await s.outbox.ack((await s.outbox.claim(10_000)).filter((c) => c.record.accountId === account).map((c) => c.id));
      expect((await s.admission.billStates([step.lease]))[0]).toBe('applied');
      await s.admission.finish(paidFinish(step.requestId, 1500, 3000, paidBill(account, step.requestId, 6000, 1000, 500, 3000)));
      expect((await s.admission.billStates([step.lease]))[0]).toBe('pending');
    });

    it("holds a recreated lease's hold once, only when the store lost it too, and none for a free one", async () => {
      await grantLine(s.admission, account, 10_000);
      const step = paidStep(account, 6000);
      await s.admission.admit(step);
      // The lease lost, the hold kept: nothing held twice.
      await s.leases.end(step.lease);
      expect(await s.admission.resurrect(step.lease, LEASE_TTL)).toBe('resurrected');
      expect(await s.admission.credit(account)).toMatchObject({ held: 6000 });
      expect(await s.admission.resurrect(admittedLease(account, 'free-lost'), LEASE_TTL)).toBe('resurrected');
      expect(await s.admission.credit(account)).toMatchObject({ held: 6000 });
    });

    it('adopts a line billing-service lent that the store does not know, merged, to be given back once idle; a known line is left alone', async () => {
      const idleMs = 600_000;
      // Unknown: Redis lost it (the account is not among the active lines).
      expect(await s.admission.adoptLine(account, { granted: 50_000, charged: 8000, returned: 2000 })).toBe(true);
      expect(await s.admission.credit(account)).toEqual({ granted: 50_000, charged: 8000, returned: 2000, held: 0 });
      expect(await s.admission.adoptLine(account, { granted: 50_000, charged: 9000, returned: 2000 })).toBe(false);
      expect(await s.admission.idleLines(idleMs, 10_000)).not.toContain(account);
      nowMs += idleMs;
      expect(await s.admission.idleLines(idleMs, 10_000)).toContain(account);
      expect(await s.admission.returnLine(account, idleMs)).toEqual({ returnedMicro: 40_000, heldMicro: 0, returnedTotalMicro: 42_000 });
      expect(await s.admission.idleLines(idleMs, 10_000)).not.toContain(account);
      expect(await outboxOf(s.outbox, account)).toEqual([{ kind: 'return', accountId: account, returnedTotalMicro: 42_000 }]);

      // Not while a bill of the account waits: its charge is in neither total yet.
      const waiting = `acct_${randomUUID()}`;
      const bill = paidBill(waiting, 'waiting-bill', 3000, 1000, 0, 1000);
      await s.admission.finish({
        accountId: waiting,
        requestId: 'waiting-bill',
        admitted: true,
        payment: 'paid',
        tokens: 1000,
        usageEstimated: false,
        lapsed: false,
        chargeMicro: 1000,
        bill,
      });
      expect(await s.admission.adoptLine(waiting, { granted: 10_000, charged: 0, returned: 0 })).toBe(false);
      await s.outbox.ack((await s.outbox.claim(10_000)).filter((c) => c.record.accountId === waiting).map((c) => c.id));
      expect(await s.admission.adoptLine(waiting, { granted: 10_000, charged: 1000, returned: 0 })).toBe(true);
      expect(await s.admission.credit(waiting)).toEqual({ granted: 10_000, charged: 1000, returned: 0, held: 0 });

      // Known and active: its own totals stay.
      const known = `acct_${randomUUID()}`;
      await grantLine(s.admission, known, 10_000);
      expect(await s.admission.adoptLine(known, { granted: 5000, charged: 0, returned: 0 })).toBe(false);
      expect(await s.admission.credit(known)).toEqual({ granted: 10_000, charged: 0, returned: 0, held: 0 });
    });

    it("judges a lost line's admission by billing-service's totals plus the charges waiting, without taking them; takes them once none waits", async () => {
      // The store lost the line; a finish queued again since charged 3,000, its bill waiting.
      const bill = paidBill(account, 'resent', 5000, 1000, 500, 3000);
      await s.admission.finish(paidFinish('resent', 1500, 3000, bill));
      // billing-service: 20,000 lent, 10,000 charged (without the 3,000): 7,000 left, not 10,000.
      const merge = { granted: 20_000, charged: 10_000, returned: 0 };
      expect(await s.admission.admit(paidStep(account, 8000, { merge }))).toMatchObject({
        outcome: 'not-covered',
        credit: { granted: 20_000, charged: 13_000, returned: 0, held: 0 },
      });
      expect(await s.admission.admit(paidStep(account, 4000, { merge }))).toMatchObject({ outcome: 'admitted' });
      expect(await s.admission.credit(account)).toEqual({ granted: 0, charged: 3000, returned: 0, held: 4000 });
      // Applied: billing-service's totals are the line's now.
      await s.outbox.ack((await s.outbox.claim(10_000)).filter((c) => c.record.accountId === account).map((c) => c.id));
      const applied = { granted: 20_000, charged: 13_000, returned: 0 };
      expect(await s.admission.admit(paidStep(account, 3000, { merge: applied }))).toMatchObject({ outcome: 'admitted' });
      expect(await s.admission.credit(account)).toEqual({ granted: 20_000, charged: 13_000, returned: 0, held: 7000 });
    });

    it('gives back the unheld line when forced, queueing the cumulative total returned', async () => {
      await grantLine(s.admission, account, 10_000);
      const running = paidStep(account, 6000);
      await s.admission.admit(running);
      expect(await s.admission.returnLine(account)).toEqual({ returnedMicro: 4000, heldMicro: 6000, returnedTotalMicro: 4000 });
      expect(await s.admission.returnLine(account)).toEqual({ returnedMicro: 0, heldMicro: 6000, returnedTotalMicro: 4000 });
      await s.admission.finish(paidFinish(running.requestId, 1000, 1000, undefined));
      expect(await s.admission.returnLine(account)).toEqual({ returnedMicro: 5000, heldMicro: 0, returnedTotalMicro: 9000 });
      expect(await s.admission.credit(account)).toEqual({ granted: 10_000, charged: 1000, returned: 9000, held: 0 });
      expect(await outboxOf(s.outbox, account)).toEqual([
        { kind: 'return', accountId: account, returnedTotalMicro: 4000 },
        { kind: 'return', accountId: account, returnedTotalMicro: 9000 },
      ]);
    });

    it('gives back an idle line only once it is idle, and forgets the account once nothing is held', async () => {
      const idleMs = 600_000;
      await grantLine(s.admission, account, 10_000);
      const running = paidStep(account, 6000);
      await s.admission.admit(running);
      nowMs += idleMs - 1;
      expect(await s.admission.idleLines(idleMs, 10_000)).not.toContain(account);
      expect(await s.admission.returnLine(account, idleMs)).toEqual({ returnedMicro: 0, heldMicro: 6000, returnedTotalMicro: 0 });
      nowMs += 1;
      expect(await s.admission.idleLines(idleMs, 10_000)).toContain(account);
      expect(await s.admission.returnLine(account, idleMs)).toEqual({ returnedMicro: 4000, heldMicro: 6000, returnedTotalMicro: 4000 });
      expect(await s.admission.idleLines(idleMs, 10_000)).toContain(account);
      await s.admission.finish(paidFinish(running.requestId, 0, 0, undefined));
      expect(await s.admission.returnLine(account, idleMs)).toEqual({ returnedMicro: 6000, heldMicro: 0, returnedTotalMicro: 10_000 });
      expect(await s.admission.idleLines(idleMs, 10_000)).not.toContain(account);
      expect(await s.admission.returnLine(account, idleMs)).toEqual({ returnedMicro: 0, heldMicro: 0, returnedTotalMicro: 10_000 });
    });
  });
}
