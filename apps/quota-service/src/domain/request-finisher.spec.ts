import { status } from '@grpc/grpc-js';
import { EVENING, TEST_DEFAULTS } from '../../test/store-contracts/free-tier-fixtures';
import { freeStep, grantLine, holdOf, paidBill, paidStep, SETTINGS } from '../../test/store-contracts/admission-fixtures';
import { InMemoryStoreSet, openInMemoryStores } from '../store/in-memory-stores';
import { FinishReport, RequestFinisher } from './request-finisher';
import { finishTermsRefused } from '../quota-metrics';
import { DomainError } from '@gw/errors';
import { grpcCodeOf } from '@gw/service-kit';

describe('RequestFinisher, requests admitted by Admit', () => {
  let stores: InMemoryStoreSet;
  let finisher: RequestFinisher;
  const end = (overrides: Partial<FinishReport> = {}): FinishReport => ({
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

  it("finishes a lapsed lease as the edge would: an admitted paid one at its hold's prices, estimated", async () => {
    const lapsed = { ...paidStep('a', 6000, { requestId: 'r1' }).lease, promptTokens: 1000, completionTokens: 500 };
    await finisher.finishLapsed(lapsed);
    expect((await stores.outbox.claim(10)).map((c) => c.record)).toEqual([
      { ...paidBill('a', 'r1', 6000, 1000, 500, 3000), usageEstimated: true, endReason: 'recovered', admittedAtMs: EVENING },
    ]);
  });

  it('names in the bill the key its admission recorded, whether the finish restates its terms, leaves its hold out, or its lease lapsed', async () => {
    // Another account's three places.
    await grantLine(stores.admission, 'b', 100_000);
    for (const requestId of ['k1', 'k2', 'k3']) await stores.admission.admit(paidStep('b', 6000, { requestId, keyId: 'key_b' }));
    await finisher.finishAdmitted(end({ accountId: 'b', requestId: 'k1' }));
    await finisher.finishAdmitted(end({ accountId: 'b', requestId: 'k2', hold: undefined }));
    await finisher.finishLapsed({ ...paidStep('b', 6000, { requestId: 'k3' }).lease, promptTokens: 1000, completionTokens: 500 });
    const bills = (await stores.outbox.claim(10)).map((c) => c.record);
    expect(bills.map((b) => (b.kind === 'bill' ? [b.requestId, b.keyId] : b))).toEqual([
      ['k1', 'key_b'],
      ['k2', 'key_b'],
      ['k3', 'key_b'],
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
