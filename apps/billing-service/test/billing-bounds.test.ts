import { status } from '@grpc/grpc-js';
import { MAX_COMPLETION_TOKENS, MAX_ID_LENGTH, MAX_MODEL_ID_LENGTH, MAX_PROMPT_TOKENS } from '@gw/bounds';
import { billingV1 } from '@gw/contracts';
import { MAX_MICRO_LYD, MAX_PRICE_MICRO_LYD_PER_MILLION } from '@gw/money';
import { billingBoundsStack } from './billing-bounds-stack';

const id = (length: number, fill = 'i') => fill.repeat(length);

/**
 * Every count, amount and id billing.v1 takes has a bound (libs/bounds, libs/money): just past it
 * the call is refused with INVALID_ARGUMENT and nothing in Postgres changes; at it, it is taken.
 */
describe('billing.v1.Billing over gRPC: bounds of counts, amounts and ids', () => {
  const bounds = billingBoundsStack();
  const { state, refused, funded } = bounds;
  let seq = 0;

  it('GetBalance, ListCharges and DailyTotals: ids by length, page and days by count', async () => {
    const accountId = await funded();
    await refused(() => bounds.client.getBalance({ accountId: id(MAX_ID_LENGTH + 1) }));
    expect(await bounds.client.getBalance({ accountId: id(MAX_ID_LENGTH) })).toEqual({ balanceMicroLyd: 0 });
    await refused(() => bounds.client.listCharges({ accountId, limit: 101, before: '' }));
    await refused(() => bounds.client.listCharges({ accountId, limit: 1, before: id(MAX_ID_LENGTH + 1) }));
    await refused(() => bounds.client.listCharges({ accountId: id(MAX_ID_LENGTH + 1), limit: 1, before: '' }));
    expect(await bounds.client.listCharges({ accountId, limit: 100, before: id(MAX_ID_LENGTH) })).toEqual({ charges: [], next: '' });
    await refused(() => bounds.client.dailyTotals({ accountId, days: 367 }));
    await refused(() => bounds.client.dailyTotals({ accountId: id(MAX_ID_LENGTH + 1), days: 1 }));
    expect((await bounds.client.dailyTotals({ accountId, days: 366 })).days).toHaveLength(366);
  });

  it('AddBalance: an amount within ±(2^53 - 1) micro-LYD; past it (2^53, 2^62) INVALID_ARGUMENT, not INTERNAL', async () => {
    const accountId = `acct_amount_${++seq}`;
    for (const amountMicroLyd of [MAX_MICRO_LYD + 1, -(MAX_MICRO_LYD + 1), 2 ** 62, -(2 ** 62)])
      await refused(() => bounds.client.addBalance({ accountId, amountMicroLyd }));
    await refused(() => bounds.client.addBalance({ accountId: id(MAX_ID_LENGTH + 1), amountMicroLyd: 1 }));
    expect(await bounds.client.addBalance({ accountId, amountMicroLyd: MAX_MICRO_LYD })).toEqual({ balanceMicroLyd: MAX_MICRO_LYD });
    expect(await bounds.client.addBalance({ accountId, amountMicroLyd: -MAX_MICRO_LYD })).toEqual({ balanceMicroLyd: 0 });
    const longAccount = await bounds.client.addBalance({ accountId: id(MAX_ID_LENGTH, 'a'), amountMicroLyd: 1 });
    expect(longAccount).toEqual({ balanceMicroLyd: 1 });
  });

  it('ExtendCreditLine and ApplyBills: amounts from 0 to 2^53 - 1, tokens, prices and ids by their bounds, at most 256 bills and returns', async () => {
    const accountId = await funded();
    const extend = { accountId, returnedTotalMicroLyd: 0, needMicroLyd: 0 };
    for (const amount of [-1, MAX_MICRO_LYD + 1, 2 ** 62]) {
      await refused(() => bounds.client.extendCreditLine({ ...extend, returnedTotalMicroLyd: amount }));
      await refused(() => bounds.client.extendCreditLine({ ...extend, needMicroLyd: amount }));
    }
    await refused(() => bounds.client.extendCreditLine({ ...extend, accountId: id(MAX_ID_LENGTH + 1) }));
    expect(
      await bounds.client.extendCreditLine({
        accountId: id(MAX_ID_LENGTH, 'e'),
        returnedTotalMicroLyd: MAX_MICRO_LYD,
        needMicroLyd: MAX_MICRO_LYD,
      }),
    ).toMatchObject({
      grantedTotalMicroLyd: 0,
    });
    expect(await bounds.client.extendCreditLine(extend)).toMatchObject({ grantedTotalMicroLyd: 10_000_000_000 });

    const price = MAX_PRICE_MICRO_LYD_PER_MILLION;
    const dearest = {
      requestId: id(MAX_ID_LENGTH, 'b'),
      accountId,
      model: id(MAX_MODEL_ID_LENGTH, 'm'),
      paid: true,
      promptTokens: MAX_PROMPT_TOKENS,
      completionTokens: MAX_COMPLETION_TOKENS,
      usageEstimated: false,
      heldMicroLyd: MAX_MICRO_LYD,
      inputMicroLydPerMillion: price,
      outputMicroLydPerMillion: price,
      chargeMicroLyd: 1_032_768_000,
    };
    const past: Partial<billingV1.Bill>[] = [
      { requestId: id(MAX_ID_LENGTH + 1) },
      { accountId: id(MAX_ID_LENGTH + 1) },
      { model: id(MAX_MODEL_ID_LENGTH + 1, 'm') },
      { promptTokens: MAX_PROMPT_TOKENS + 1 },
      { completionTokens: MAX_COMPLETION_TOKENS + 1 },
      { heldMicroLyd: -1 },
      { inputMicroLydPerMillion: price + 1 },
      { outputMicroLydPerMillion: -1 },
      { chargeMicroLyd: -1 },
    ];
    const before = await state();
    const { outcomes } = await bounds.client.applyBills({ bills: past.map((p) => ({ ...dearest, ...p })), returns: [] });
    expect(outcomes.map((o) => o.errorCode)).toEqual(past.map(() => status.INVALID_ARGUMENT));
    expect(await state()).toEqual(before);
    // A number past 2^53 - 1 cannot be decoded: the whole call is refused.
    await refused(() => bounds.client.applyBills({ bills: [dearest, { ...dearest, completionTokens: 2 ** 62 }], returns: [] }));
    await refused(() => bounds.client.applyBills({ bills: [dearest, { ...dearest, heldMicroLyd: MAX_MICRO_LYD + 1 }], returns: [] }));
    await refused(() => bounds.client.applyBills({ bills: [dearest], returns: [{ accountId, returnedTotalMicroLyd: MAX_MICRO_LYD + 1 }] }));
    await refused(() =>
      bounds.client.applyBills({ bills: [dearest], returns: [{ accountId: id(MAX_ID_LENGTH + 1), returnedTotalMicroLyd: 1 }] }),
    );
    await refused(() =>
      bounds.client.applyBills({ bills: [], returns: Array.from({ length: 257 }, () => ({ accountId, returnedTotalMicroLyd: 0 })) }),
    );
    await refused(() => bounds.client.applyBills({ bills: Array.from({ length: 257 }, () => dearest), returns: [] }));
    expect(
      await bounds.client.applyBills({ bills: [dearest], returns: [{ accountId, returnedTotalMicroLyd: MAX_MICRO_LYD - 10_000_000_000 }] }),
    ).toEqual({
      outcomes: [{ applied: true, repeated: false, setAside: false, shortfallMicroLyd: 0, errorCode: 0, errorMessage: '' }],
    });
  });

  it('SetPrice: each price up to 1,000 LYD per million tokens, the model id up to 128 characters', async () => {
    const price = {
      model: 'vendor-v4-bounds',
      inputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION,
      outputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION,
    };
    await refused(() => bounds.client.setPrice({ price: { ...price, inputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION + 1 } }));
    await refused(() => bounds.client.setPrice({ price: { ...price, outputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION + 1 } }));
    await refused(() => bounds.client.setPrice({ price: { ...price, outputMicroLydPerMillion: 2 ** 62 } }));
    await refused(() => bounds.client.setPrice({ price: { ...price, model: id(MAX_MODEL_ID_LENGTH + 1, 'm') } }));
    expect(await bounds.client.setPrice({ price })).toEqual({ price });

    // The dearest request there can be is billed exactly, far inside a safe integer.
    const accountId = await funded(MAX_MICRO_LYD);
    await bounds.client.extendCreditLine({ accountId, returnedTotalMicroLyd: 0, needMicroLyd: 0 });
    const dearest: billingV1.Bill = {
      requestId: `req_bounds_${++seq}`,
      accountId,
      model: price.model,
      paid: true,
      promptTokens: MAX_PROMPT_TOKENS,
      completionTokens: MAX_COMPLETION_TOKENS,
      usageEstimated: false,
      heldMicroLyd: 1_032_768_000,
      inputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION,
      outputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION,
      chargeMicroLyd: 1_032_768_000,
      endReason: billingV1.EndReason.END_REASON_COMPLETE,
    };
    expect((await bounds.client.applyBills({ bills: [dearest], returns: [] })).outcomes).toMatchObject([
      { applied: true, shortfallMicroLyd: 0 },
    ]);
    expect(await bounds.client.getBalance({ accountId })).toEqual({ balanceMicroLyd: MAX_MICRO_LYD - 1_032_768_000 });
  });
});
