import { status } from '@grpc/grpc-js';
import { EVENING, freeRequest, RESERVED, TEST_DEFAULTS, TEST_LIMITS } from '../../test/store-contracts/free-tier-fixtures';
import { freeStep, grantLine, holdOf, paidBill, paidStep, SETTINGS } from '../../test/store-contracts/admission-fixtures';
import { InMemoryAdmissionStore } from '../store/admission/in-memory-admission-store';
import { InMemoryFreeTierStore } from '../store/free-tier/in-memory-free-tier-store';
import { InMemoryLeaseStore } from '../store/leases/in-memory-lease-store';
import { InMemoryLimitStore } from '../store/limits/in-memory-limit-store';
import { InMemorySettleOutbox } from '../store/outbox/in-memory-settle-outbox';
import { InMemoryStoreSet, openInMemoryStores } from '../store/in-memory-stores';
import { SettleRecord } from '../store/outbox/settle-outbox';
import { FreeTierGate } from './free-tier-gate';
import { AdmittedEnd, RequestFinisher } from './request-finisher';
import { finishTermsRefused } from '../quota-metrics';
import { DomainError } from '@gw/errors';
import { grpcCodeOf } from '@gw/service-kit';

const bill = (overrides: Partial<SettleRecord> = {}): SettleRecord => ({
  requestId: 'r1',
  accountId: 'a',
  model: 'vendor-v4-flash',
  payment: 'paid',
  promptTokens: 1000,
  completionTokens: 200,
  usageEstimated: false,
  ...overrides,
});

describe('RequestFinisher', () => {
  let limits: InMemoryLimitStore;
  let freeTier: InMemoryFreeTierStore;
  let outbox: InMemorySettleOutbox;
  let leases: InMemoryLeaseStore;
  let finisher: RequestFinisher;
  let gate: FreeTierGate;
  const now = () => EVENING;
  const queued = async () => (await outbox.claim(100)).map((c) => c.record);

  beforeEach(async () => {
    limits = new InMemoryLimitStore(SETTINGS, now);
    freeTier = new InMemoryFreeTierStore({ ...TEST_DEFAULTS, dailyTokens: RESERVED }, now);
    outbox = new InMemorySettleOutbox();
    leases = new InMemoryLeaseStore(now);
    finisher = new RequestFinisher({
      limits,
      freeTier,
      outbox,
      leases,
      admission: new InMemoryAdmissionStore({ limits, freeTier, outbox, leases }, SETTINGS, now),
    });
    gate = new FreeTierGate(freeTier, TEST_LIMITS);
  });

  it('queues the bill of a paid request, frees its place and counts its tokens', async () => {
    await limits.acquirePlace('a', 'r1');
    expect(await finisher.finish(bill())).toEqual({ released: true, repeated: false });
    expect(await queued()).toEqual([bill()]);
    expect(await limits.getUsage('a')).toEqual({ todayTokens: 1200, totalTokens: 1200 });
  });

  it('ends the lease of the request, so that it never lapses', async () => {
    await leases.start(bill({ promptTokens: 10, completionTokens: 0, usageEstimated: true }), 0);
    await finisher.finish(bill());
    expect(await leases.claimLapsed(10, 1000)).toEqual([]);
  });

  it('on a repeat, queues the same bill again (billing applies it once) and counts nothing twice', async () => {
    await finisher.finish(bill());
    expect(await finisher.finish(bill())).toEqual({ released: false, repeated: true });
    expect(await queued()).toEqual([bill(), bill()]);
    expect(await limits.getUsage('a')).toEqual({ todayTokens: 1200, totalTokens: 1200 });
  });

  it('settles a free request with its real tokens, once', async () => {
    const request = freeRequest('a');
    expect(await gate.reserve(request)).toMatchObject({ granted: true });
    const free = bill({ requestId: request.requestId, payment: 'free', promptTokens: 1000, completionTokens: 48 });
    await finisher.finish(free);
    await finisher.finish(free);
    expect(await queued()).toEqual([free, free]);
    // 3,148 - 1,048 = 2,100 left: exactly a request of 1,100 + 1,000.
    expect(await gate.reserve(freeRequest('a', { maxTokens: 1001 }))).toMatchObject({ granted: false, refusal: 'allowance-too-small' });
    expect(await gate.reserve(freeRequest('a', { maxTokens: 1000 }))).toMatchObject({ granted: true });
  });

  it('does not bill a request without tokens: a free one queues nothing and gets its reservation back', async () => {
    const request = freeRequest('a');
    await gate.reserve(request);
    await finisher.finish(bill({ requestId: request.requestId, payment: 'free', promptTokens: 0, completionTokens: 0 }));
    expect(await queued()).toEqual([]);
    expect(await gate.reserve(freeRequest('a'))).toMatchObject({ granted: true });
    expect(await limits.getUsage('a')).toEqual({ todayTokens: 0, totalTokens: 0 });
  });

  it('queues a paid request without tokens, so that its hold is released', async () => {
    const unbilled = bill({ promptTokens: 0, completionTokens: 0 });
    await finisher.finish(unbilled);
    expect(await queued()).toEqual([unbilled]);
  });

  it('refuses missing ids or model and bad token counts with INVALID_ARGUMENT, changing nothing', async () => {
    for (const bad of [
      bill({ accountId: '' }),
      bill({ requestId: '' }),
      bill({ model: '' }),
      bill({ promptTokens: -1 }),
      bill({ completionTokens: 0.5 }),
    ]) {
      const err: unknown = await finisher.finish(bad).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DomainError);
      expect(grpcCodeOf(err)).toBe(status.INVALID_ARGUMENT);
    }
    expect(await queued()).toEqual([]);
  });
});

describe('RequestFinisher, requests admitted by Admit', () => {
  let stores: InMemoryStoreSet;
  let finisher: RequestFinisher;
  const end = (overrides: Partial<AdmittedEnd> = {}): AdmittedEnd => ({
    requestId: 'r1',
    accountId: 'a',
    model: 'vendor-v4-flash',
    payment: 'paid',
    promptTokens: 1000,
    completionTokens: 500,
    usageEstimated: false,
    admitted: true,
    hold: holdOf(6000),
    ...overrides,
  });

  beforeEach(async () => {
    stores = openInMemoryStores(SETTINGS, TEST_DEFAULTS, () => EVENING);
    finisher = new RequestFinisher(stores);
    await grantLine(stores.admission, 'a', 100_000);
    for (const requestId of ['r1', 'r2']) await stores.admission.admit(paidStep('a', 6000, { requestId }));
  });

  it("charges the tokens at the hold's prices, never more than the hold, and gives the rest back to the line", async () => {
    expect(await finisher.finishAdmitted(end())).toEqual({ released: true, repeated: false });
    expect(await finisher.finishAdmitted(end({ requestId: 'r2', completionTokens: 2000 }))).toEqual({ released: true, repeated: false });
    expect((await stores.outbox.claim(10)).map((c) => c.record)).toEqual([
      { ...paidBill('a', 'r1', 6000, 1000, 500, 3000), admittedAtMs: EVENING },
      { ...paidBill('a', 'r2', 6000, 1000, 2000, 6000), admittedAtMs: EVENING },
    ]);
    expect(await stores.admission.credit('a')).toEqual({ granted: 100_000, charged: 9000, returned: 0, held: 0 });
  });

  it('queues no bill for no tokens, and refuses a paid finish without a hold anywhere (the store lost its admission), changing nothing', async () => {
    await expect(finisher.finishAdmitted(end({ requestId: 'lost', hold: undefined }))).rejects.toMatchObject({ kind: 'invalid-argument' });
    await expect(finisher.finishAdmitted(end({ requestId: 'lost', hold: holdOf(-1) }))).rejects.toMatchObject({ kind: 'invalid-argument' });
    await expect(finisher.finishAdmitted(end({ hold: holdOf(-1) }))).rejects.toMatchObject({ kind: 'invalid-argument' });
    expect(await stores.admission.credit('a')).toMatchObject({ held: 12_000 });
    await finisher.finishAdmitted(end({ promptTokens: 0, completionTokens: 0 }));
    expect(await stores.outbox.claim(10)).toEqual([]);
    expect(await stores.admission.credit('a')).toEqual({ granted: 100_000, charged: 0, returned: 0, held: 6000 });
  });

  it('gives back all an admission took, billing nothing, when the edge never had the answer', async () => {
    await finisher.finishAdmitted(end({ admitted: false, hold: undefined }));
    expect(await stores.admission.credit('a')).toMatchObject({ charged: 0, held: 6000 });
    expect(await stores.outbox.claim(10)).toEqual([]);
    expect(await stores.limits.getUsage('a')).toEqual({ todayTokens: 0, totalTokens: 0 });
  });

  it("queues a free request's late real bill once after its lease lapsed with nothing of its reply (the edge lost quota-service meanwhile)", async () => {
    await stores.admission.admit(freeStep('a', { requestId: 'f1' }));
    const lapsed = { ...freeStep('a', { requestId: 'f1' }).lease, promptTokens: 0, completionTokens: 0 };
    expect(lapsed.maxTokens).toBeDefined();
    await finisher.finishLapsed(lapsed);
    expect(await stores.outbox.claim(10)).toEqual([]);
    const real = end({ requestId: 'f1', payment: 'free', hold: undefined, promptTokens: 20, completionTokens: 30 });
    expect(await finisher.finishAdmitted(real)).toEqual({ released: false, repeated: true });
    expect(await finisher.finishAdmitted(real)).toEqual({ released: false, repeated: true });
    expect((await stores.outbox.claim(10)).map((c) => c.record)).toEqual([
      expect.objectContaining({ requestId: 'f1', payment: 'free', promptTokens: 20, completionTokens: 30 }),
    ]);
  });

  it('finishes a lapsed lease as the edge would: an admitted paid one at its hold, estimated; an older one as before', async () => {
    const lapsed = { ...paidStep('a', 6000, { requestId: 'r1' }).lease, promptTokens: 1000, completionTokens: 500 };
    await finisher.finishLapsed(lapsed);
    await finisher.finishLapsed(bill({ requestId: 'older', usageEstimated: true }));
    expect((await stores.outbox.claim(10)).map((c) => c.record)).toEqual([
      { ...paidBill('a', 'r1', 6000, 1000, 500, 3000), usageEstimated: true, endReason: 'recovered', admittedAtMs: EVENING },
      bill({ requestId: 'older', usageEstimated: true }),
    ]);
  });
  it('refuses a finish that restates its terms otherwise (prices 0, hold 1, free), charging nothing then the admitted terms', async () => {
    const refusedBy = async (field: string) => (await finishTermsRefused.get()).values.find((v) => v.labels.field === field)?.value ?? 0;
    const before = [await refusedBy('hold'), await refusedBy('payment'), await refusedBy('model')];
    const forged = [
      end({ hold: { amountMicro: 6000, inputMicroPerMillion: 0, outputMicroPerMillion: 0 } }),
      end({ hold: holdOf(1) }),
      end({ payment: 'free', hold: undefined }),
      end({ model: 'vendor-v4-pro' }),
    ];
    for (const finish of forged) {
      const refused = await finisher.finishAdmitted(finish).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(DomainError);
      expect(grpcCodeOf(refused)).toBe(status.INVALID_ARGUMENT);
    }
    const after = [await refusedBy('hold'), await refusedBy('payment'), await refusedBy('model')];
    expect(after.map((n, i) => n - before[i])).toEqual([2, 1, 1]);
    expect(await stores.admission.credit('a')).toEqual({ granted: 100_000, charged: 0, returned: 0, held: 12_000 });
    expect(await stores.outbox.claim(10)).toEqual([]);

    // A finish that carries only what happened is charged at the admitted terms.
    expect(await finisher.finishAdmitted(end({ hold: undefined }))).toEqual({ released: true, repeated: false });
    expect((await stores.outbox.claim(10)).map((c) => c.record)).toEqual([
      { ...paidBill('a', 'r1', 6000, 1000, 500, 3000), admittedAtMs: EVENING },
    ]);
    expect(await stores.admission.credit('a')).toMatchObject({ charged: 3000, held: 6000 });
  });

  it('charges a lapse at the admitted terms whatever its renewals said, and the store-lost path with the terms the request carries', async () => {
    const renewal = { ...paidStep('a', 6000, { requestId: 'r1' }).lease, hold: holdOf(1), promptTokens: 1000, completionTokens: 500 };
    await finisher.finishLapsed(renewal);
    expect(await stores.admission.credit('a')).toMatchObject({ charged: 3000, held: 6000 });
    // Never admitted here (the store lost it): the carried hold and time are the terms.
    await finisher.finishAdmitted(end({ requestId: 'lost', admittedAtMs: EVENING - 5000 }));
    expect((await stores.outbox.claim(10)).map((c) => c.record)).toEqual([
      expect.objectContaining({ requestId: 'r1', chargeMicro: 3000, hold: holdOf(6000), admittedAtMs: EVENING }),
      { ...paidBill('a', 'lost', 6000, 1000, 500, 3000), admittedAtMs: EVENING - 5000 },
    ]);
  });
});
