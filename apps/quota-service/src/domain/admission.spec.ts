import { status } from '@grpc/grpc-js';
import { createLogger } from '@gw/service-kit';
import { admitRequest, SETTINGS } from '../../test/store-contracts/admission-fixtures';
import { EVENING, TEST_DEFAULTS, TEST_LIMITS } from '../../test/store-contracts/free-tier-fixtures';
import { InMemoryStoreSet, openInMemoryStores } from '../store/in-memory-stores';
import { AdmitRequest, Admission, CreditLinePolicy } from './admission';
import { CreditLender, LineAsk, LineExtension } from './credit-lender';
import { FreeTierGate } from './free-tier-gate';
import { PriceBook } from './price-book';

/** billing-service's side of a line, as the contract describes ExtendCreditLine: held + line <= balance. */
class FakeLender implements CreditLender {
  balance = 0;
  /** Held outside the line by older edges' Authorize. */
  held = 0;
  line = 0;
  granted = 0;
  charged = 0;
  returned = 0;
  calls: { returnedTotal: number; need: number; granted: number; uncovered: number }[] = [];
  down = false;

  async extend(ask: LineAsk): Promise<LineExtension> {
    const { returnedTotalMicro: returnedTotal, needMicro: need } = ask;
    this.calls.push({ returnedTotal, need, granted: ask.grantedTotalMicro, uncovered: ask.uncoveredMicro });
    if (this.down) throw Object.assign(new Error('unavailable'), { code: status.UNAVAILABLE });
    this.line -= Math.max(0, returnedTotal - this.returned);
    this.returned = Math.max(this.returned, returnedTotal);
    const lendable = this.balance - this.held - this.line;
    const lent = Math.max(0, need > 0 ? Math.min(lendable, need) : lendable);
    this.line += lent;
    this.granted += lent;
    return {
      grantedTotalMicro: this.granted,
      balanceMicro: this.balance,
      chargedTotalMicro: this.charged,
      returnedTotalMicro: this.returned,
      heldOutsideMicro: this.held,
    };
  }

  /** ApplyBills of one paid bill. */
  applyCharge(charge: number): void {
    this.balance -= charge;
    this.line -= charge;
    this.charged += charge;
  }
}

/** 1 LYD per million prompt tokens, 4 per million completion tokens: 1,000 prompt + 1,000 max_tokens hold 5,000 micro-LYD. */
const FLASH = { model: 'vendor-v4-flash', inputMicroPerMillion: 1_000_000, outputMicroPerMillion: 4_000_000 };
const PRO = { model: 'vendor-v4-pro', inputMicroPerMillion: 4_000_000, outputMicroPerMillion: 16_000_000 };

describe('Admission', () => {
  let nowMs = EVENING;
  let stores: InMemoryStoreSet;
  let prices: PriceBook;
  let billing: FakeLender;
  let admission: Admission;
  let seq = 0;
  const open = (linePolicy: CreditLinePolicy = 'all') => {
    stores = openInMemoryStores(SETTINGS, TEST_DEFAULTS, () => nowMs);
    admission = new Admission(
      stores.admission,
      prices,
      billing,
      new FreeTierGate(stores.freeTier, TEST_LIMITS),
      { leaseTtlMs: 30_000, linePolicy, priceWaitMs: 20 },
      createLogger('quota-service-test', 'error', () => undefined),
    );
  };
  const request = (overrides: Partial<AdmitRequest> = {}): AdmitRequest => admitRequest('acct', `req_${++seq}`, overrides);
  const admit = (overrides: Partial<AdmitRequest> = {}) => admission.admit(request(overrides), () => false);

  beforeEach(() => {
    nowMs = EVENING;
    prices = new PriceBook();
    prices.apply({ version: 1, full: true, prices: [FLASH, PRO] });
    billing = new FakeLender();
    open();
  });

  it("holds the worst case at the model's price, asking billing-service once for the line and never again while it covers", async () => {
    billing.balance = 12_000;
    expect(await admit()).toMatchObject({
      outcome: 'paid',
      count: { allowed: true, remaining: 29 },
      hold: { amountMicro: 5000, inputMicroPerMillion: 1_000_000, outputMicroPerMillion: 4_000_000 },
      admittedAtMs: EVENING,
    });
    // It tells what the request lacked, and the line it had, so that billing-service can judge the answer covers it.
    expect(billing.calls).toEqual([{ returnedTotal: 0, need: 0, granted: 0, uncovered: 5000 }]);
    expect(await admit()).toMatchObject({ outcome: 'paid', count: { remaining: 28 } });
    expect(billing.calls).toHaveLength(1);
    expect(await stores.admission.credit('acct')).toEqual({ granted: 12_000, charged: 0, returned: 0, held: 10_000 });
  });

  it("records the caller's key among the admission's terms, paid or free; none from an older edge; a key id of other characters is refused", async () => {
    const free = request({ keyId: 'key_free' });
    expect(await admission.admit(free, () => false)).toMatchObject({ outcome: 'free' });
    expect(await stores.admission.terms(free)).toMatchObject({ payment: 'free', keyId: 'key_free' });
    billing.balance = 12_000;
    const paid = request({ keyId: 'key_0123abcd' });
    expect(await admission.admit(paid, () => false)).toMatchObject({ outcome: 'paid' });
    expect(await stores.admission.terms(paid)).toMatchObject({ payment: 'paid', keyId: 'key_0123abcd' });
    const older = request({ keyId: '' });
    await admission.admit(older, () => false);
    expect(await stores.admission.terms(older)).not.toHaveProperty('keyId');
    await expect(admit({ keyId: 'key "quoted"' })).rejects.toMatchObject({ kind: 'invalid-argument' });
    await expect(admit({ keyId: 'k'.repeat(201) })).rejects.toMatchObject({ kind: 'invalid-argument' });
  });

  it('answers 402 figures such that not covered means balance < required: worst + held + charges not yet applied + held outside the line', async () => {
    billing.balance = 20_000;
    billing.held = 1000;
    const running = request();
    await admission.admit(running, () => false);
    const finished = request({ promptTokens: 2000 });
    await admission.admit(finished, () => false);
    // 2,000 prompt + 500 completion tokens cost 4,000: charged here, not yet applied by billing-service.
    const end = {
      accountId: 'acct',
      requestId: finished.requestId,
      model: 'vendor-v4-flash',
      payment: 'paid' as const,
      promptTokens: 2000,
      completionTokens: 500,
      usageEstimated: false,
    };
    await stores.admission.finish({ ...end, admitted: true, lapsed: false, tokens: 2500, chargeMicro: 4000, bill: undefined });
    // Line 19,000; held 5,000; charged 4,000: 10,000 left. A pro request of 1,000 + 1,000 holds 20,000.
    const refused = await admit({ model: 'vendor-v4-pro' });
    expect(refused).toEqual({
      outcome: 'not-covered',
      count: expect.objectContaining({ remaining: 27 }),
      refusal: 'model',
      balanceMicro: 20_000,
      requiredMicro: 20_000 + 5000 + 4000 + 1000,
    });
    // Once billing-service applied the charge, the balance and what is required both drop by it.
    billing.applyCharge(4000);
    billing.balance += 26_000 - 16_000 - 1;
    expect(await admit({ model: 'vendor-v4-pro' })).toMatchObject({ outcome: 'not-covered', balanceMicro: 25_999, requiredMicro: 26_000 });
    billing.balance += 1;
    expect(await admit({ model: 'vendor-v4-pro' })).toMatchObject({ outcome: 'paid', hold: { amountMicro: 20_000 } });
  });

  it('lets the next request through once the balance is topped up (the line extended again), counting it once', async () => {
    billing.balance = 4999;
    expect(await admit({ model: 'vendor-v4-pro' })).toMatchObject({ outcome: 'not-covered', balanceMicro: 4999, requiredMicro: 20_000 });
    billing.balance += 15_001;
    expect(await admit({ model: 'vendor-v4-pro' })).toMatchObject({ outcome: 'paid', count: { remaining: 28 } });
    expect(billing.calls.map((c) => c.need)).toEqual([0, 0]);
  });

  it('asks only for what the request lacks under the policy need', async () => {
    open('need');
    billing.balance = 100_000;
    await admit();
    expect(await stores.admission.credit('acct')).toMatchObject({ granted: 5000, held: 5000 });
    expect(billing.calls).toEqual([{ returnedTotal: 0, need: 5000, granted: 0, uncovered: 5000 }]);
  });

  it('tries a request the balance does not cover as a free request, placed with its reply capped', async () => {
    const free = await admit({ maxTokens: 8192 });
    expect(free).toEqual({ outcome: 'free', count: expect.objectContaining({ remaining: 29 }), maxTokens: 2048, admittedAtMs: EVENING });
    // 900 prompt tokens counted with their 10% margin, plus the capped reply.
    expect(await stores.freeTier.allowanceUsed('acct')).toBe(990 + 2048);
  });

  it('gives a free reservation back when every place is taken, and answers 429 concurrency', async () => {
    billing.balance = 15_000;
    for (let i = 0; i < 3; i++) await admit();
    expect(await admit()).toEqual({ outcome: 'no-place', count: expect.objectContaining({ remaining: 26 }), placeLimit: 3 });
    expect(await stores.freeTier.allowanceUsed('acct')).toBe(0);
  });

  it('answers 429 rate limited past 30 without asking billing-service', async () => {
    for (let i = 0; i < 30; i++) await stores.limits.countRequest('acct');
    expect(await admit()).toEqual({ outcome: 'rate-limited', count: expect.objectContaining({ allowed: false, remaining: 0 }) });
    expect(billing.calls).toEqual([]);
  });

  it('fails UNAVAILABLE when the line cannot be extended, the request counted', async () => {
    billing.down = true;
    await expect(admit()).rejects.toMatchObject({ kind: 'unavailable' });
    expect((await stores.limits.countRequest('acct')).count).toBe(2);
  });

  it('fails, counting nothing, without prices (UNAVAILABLE), for a model without one (FAILED_PRECONDITION), and for a field past its bound', async () => {
    await expect(admit({ model: 'vendor-v5' })).rejects.toMatchObject({ kind: 'failed-precondition' });
    await expect(admit({ promptTokens: 1_000_001 })).rejects.toMatchObject({ kind: 'invalid-argument' });
    await expect(admit({ maxTokens: 0 })).rejects.toMatchObject({ kind: 'invalid-argument' });
    await expect(admit({ accountId: '' })).rejects.toMatchObject({ kind: 'invalid-argument' });
    prices.drop();
    await expect(admit()).rejects.toMatchObject({ kind: 'unavailable' });
    expect((await stores.limits.countRequest('acct')).count).toBe(1);
  });

  it('answers a repeated request id as its first admission, counted once; one its edge gave up on ABORTED', async () => {
    billing.balance = 100_000;
    const first = request();
    const answer = await admission.admit(first, () => false);
    expect(await admission.admit(first, () => false)).toEqual(answer);
    // A price changed since: the repeat still answers the hold its admission fixed.
    prices.apply({ version: 2, full: true, prices: [{ ...FLASH, outputMicroPerMillion: 8_000_000 }, PRO] });
    nowMs += 1000;
    expect(await admission.admit(first, () => false)).toEqual({ ...answer, count: expect.anything() });
    expect(
      await stores.admission.admit({
        accountId: 'acct',
        requestId: first.requestId,
        mode: 'count',
        payment: 'paid',
        worstMicro: 1,
        lease: { ...first, payment: 'paid', completionTokens: 0, usageEstimated: true },
        leaseTtlMs: 1,
      }),
    ).toMatchObject({
      count: { count: 1 },
    });
    const late = request();
    await stores.admission.finish({
      accountId: 'acct',
      requestId: late.requestId,
      admitted: false,
      usageEstimated: false,
      lapsed: false,
      payment: 'paid',
      tokens: 0,
      chargeMicro: 0,
      bill: undefined,
    });
    await expect(admission.admit(late, () => false)).rejects.toMatchObject({ kind: 'aborted' });
    expect(await stores.admission.credit('acct')).toMatchObject({ held: 5000 });
  });

  it('waits a moment for a price table on its way, and answers UNIMPLEMENTED, counting nothing, when billing-service serves none', async () => {
    billing.balance = 100_000;
    prices.drop();
    prices.onWanted = () => setTimeout(() => prices.apply({ version: 2, full: true, prices: [FLASH] }), 5);
    expect(await admit()).toMatchObject({ outcome: 'paid' });
    prices.drop('unsupported');
    prices.onWanted = () => undefined;
    await expect(admit()).rejects.toMatchObject({ kind: 'unimplemented' });
    expect((await stores.limits.countRequest('acct')).count).toBe(2);
  });

  it('prices with a change as soon as the book has it', async () => {
    billing.balance = 100_000;
    prices.apply({ version: 2, full: false, prices: [{ ...FLASH, outputMicroPerMillion: 8_000_000 }] });
    expect(await admit()).toMatchObject({ outcome: 'paid', hold: { amountMicro: 9000, outputMicroPerMillion: 8_000_000 } });
  });
});
