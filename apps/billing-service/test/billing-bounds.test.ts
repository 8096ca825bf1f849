import { status } from '@grpc/grpc-js';
import { MAX_COMPLETION_TOKENS, MAX_ID_LENGTH, MAX_MODEL_ID_LENGTH, MAX_PROMPT_TOKENS } from '@gw/bounds';
import { billingV1 } from '@gw/contracts';
import { MAX_MICRO_LYD, MAX_PRICE_MICRO_LYD_PER_MILLION } from '@gw/money';
import { clientChain, createLogger, Database, openDatabase, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { BillingApp, startBillingApp } from '../src/billing-app';
import { loadConfig } from '../src/config';

const DEADLINE_MS = 5000;
const id = (length: number, fill = 'i') => fill.repeat(length);

/**
 * Every count, amount and id billing.v1 takes has a bound (libs/bounds, libs/money): just past it
 * the call is refused with INVALID_ARGUMENT and nothing in Postgres changes; at it, it is taken.
 */
describe('billing.v1.Billing over gRPC: bounds of counts, amounts and ids', () => {
  let testDb: TestDatabase;
  let db: Database;
  let app: BillingApp;
  let client: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  let seq = 0;

  /** Everything billing keeps: holds, ledger rows, balances with their credit lines, and prices. */
  const state = async () =>
    (
      await db.query(`SELECT
        (SELECT json_agg(h ORDER BY request_id) FROM billing.holds h) AS holds,
        (SELECT json_agg(l ORDER BY request_id) FROM billing.ledger l) AS ledger,
        (SELECT json_agg(json_build_array(account_id, balance_micro, held_micro, line_micro, line_granted_total, line_charged_total,
          line_returned_total) ORDER BY account_id) FROM billing.balances) AS balances,
        (SELECT json_agg(json_build_array(model, input_micro_per_million, output_micro_per_million) ORDER BY model) FROM billing.prices) AS prices`)
    ).rows[0];
  /** The call is refused with INVALID_ARGUMENT, and billing's state is as it was. */
  const refused = async (work: () => Promise<unknown>) => {
    const before = await state();
    await expect(work()).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(await state()).toEqual(before);
  };
  const funded = async (micro = 10_000_000_000) => {
    const accountId = `acct_bounds_${++seq}`;
    await client.addBalance({ accountId, amountMicroLyd: micro });
    return accountId;
  };

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const config = loadConfig({
      BILLING_METRICS_PORT: '0',
      BILLING_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      DATABASE_URL: testDb.url,
      SHUTDOWN_GRACE_MS: '1000',
    });
    app = await startBillingApp(
      config,
      createLogger('billing-service', 'error', () => undefined),
    );
    const settings = { timeoutMs: DEADLINE_MS, chain: clientChain() };
    client = rpcClient(billingV1.BillingClient, `127.0.0.1:${app.port}`, { kind: 'insecure' }, 'billing-service', settings);
    db = await openDatabase(testDb.url, '');
  });

  afterAll(async () => {
    client?.close();
    await db?.close();
    try {
      await app?.stop();
    } finally {
      await testDb?.drop();
    }
  });

  it('GetBalance, ListCharges and DailyTotals: ids by length, page and days by count', async () => {
    const accountId = await funded();
    await refused(() => client.getBalance({ accountId: id(MAX_ID_LENGTH + 1) }));
    expect(await client.getBalance({ accountId: id(MAX_ID_LENGTH) })).toEqual({ balanceMicroLyd: 0 });
    await refused(() => client.listCharges({ accountId, limit: 101, before: '' }));
    await refused(() => client.listCharges({ accountId, limit: 1, before: id(MAX_ID_LENGTH + 1) }));
    await refused(() => client.listCharges({ accountId: id(MAX_ID_LENGTH + 1), limit: 1, before: '' }));
    expect(await client.listCharges({ accountId, limit: 100, before: id(MAX_ID_LENGTH) })).toEqual({ charges: [], next: '' });
    await refused(() => client.dailyTotals({ accountId, days: 367 }));
    await refused(() => client.dailyTotals({ accountId: id(MAX_ID_LENGTH + 1), days: 1 }));
    expect((await client.dailyTotals({ accountId, days: 366 })).days).toHaveLength(366);
  });

  it('AddBalance: an amount within ±(2^53 - 1) micro-LYD; past it (2^53, 2^62) INVALID_ARGUMENT, not INTERNAL', async () => {
    const accountId = `acct_amount_${++seq}`;
    for (const amountMicroLyd of [MAX_MICRO_LYD + 1, -(MAX_MICRO_LYD + 1), 2 ** 62, -(2 ** 62)])
      await refused(() => client.addBalance({ accountId, amountMicroLyd }));
    await refused(() => client.addBalance({ accountId: id(MAX_ID_LENGTH + 1), amountMicroLyd: 1 }));
    expect(await client.addBalance({ accountId, amountMicroLyd: MAX_MICRO_LYD })).toEqual({ balanceMicroLyd: MAX_MICRO_LYD });
    expect(await client.addBalance({ accountId, amountMicroLyd: -MAX_MICRO_LYD })).toEqual({ balanceMicroLyd: 0 });
    const longAccount = await client.addBalance({ accountId: id(MAX_ID_LENGTH, 'a'), amountMicroLyd: 1 });
    expect(longAccount).toEqual({ balanceMicroLyd: 1 });
  });

  it('ExtendCreditLine and ApplyBills: amounts from 0 to 2^53 - 1, tokens, prices and ids by their bounds, at most 256 bills and returns', async () => {
    const accountId = await funded();
    const extend = { accountId, returnedTotalMicroLyd: 0, needMicroLyd: 0 };
    for (const amount of [-1, MAX_MICRO_LYD + 1, 2 ** 62]) {
      await refused(() => client.extendCreditLine({ ...extend, returnedTotalMicroLyd: amount }));
      await refused(() => client.extendCreditLine({ ...extend, needMicroLyd: amount }));
    }
    await refused(() => client.extendCreditLine({ ...extend, accountId: id(MAX_ID_LENGTH + 1) }));
    expect(
      await client.extendCreditLine({
        accountId: id(MAX_ID_LENGTH, 'e'),
        returnedTotalMicroLyd: MAX_MICRO_LYD,
        needMicroLyd: MAX_MICRO_LYD,
      }),
    ).toMatchObject({
      grantedTotalMicroLyd: 0,
    });
    expect(await client.extendCreditLine(extend)).toMatchObject({ grantedTotalMicroLyd: 10_000_000_000 });

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
    const { outcomes } = await client.applyBills({ bills: past.map((p) => ({ ...dearest, ...p })), returns: [] });
    expect(outcomes.map((o) => o.errorCode)).toEqual(past.map(() => status.INVALID_ARGUMENT));
    expect(await state()).toEqual(before);
    // A number past 2^53 - 1 cannot be decoded: the whole call is refused.
    await refused(() => client.applyBills({ bills: [dearest, { ...dearest, completionTokens: 2 ** 62 }], returns: [] }));
    await refused(() => client.applyBills({ bills: [dearest, { ...dearest, heldMicroLyd: MAX_MICRO_LYD + 1 }], returns: [] }));
    await refused(() => client.applyBills({ bills: [dearest], returns: [{ accountId, returnedTotalMicroLyd: MAX_MICRO_LYD + 1 }] }));
    await refused(() => client.applyBills({ bills: [dearest], returns: [{ accountId: id(MAX_ID_LENGTH + 1), returnedTotalMicroLyd: 1 }] }));
    await refused(() =>
      client.applyBills({ bills: [], returns: Array.from({ length: 257 }, () => ({ accountId, returnedTotalMicroLyd: 0 })) }),
    );
    await refused(() => client.applyBills({ bills: Array.from({ length: 257 }, () => dearest), returns: [] }));
    expect(
      await client.applyBills({ bills: [dearest], returns: [{ accountId, returnedTotalMicroLyd: MAX_MICRO_LYD - 10_000_000_000 }] }),
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
    await refused(() => client.setPrice({ price: { ...price, inputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION + 1 } }));
    await refused(() => client.setPrice({ price: { ...price, outputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION + 1 } }));
    await refused(() => client.setPrice({ price: { ...price, outputMicroLydPerMillion: 2 ** 62 } }));
    await refused(() => client.setPrice({ price: { ...price, model: id(MAX_MODEL_ID_LENGTH + 1, 'm') } }));
    expect(await client.setPrice({ price })).toEqual({ price });

    // The dearest request there can be is billed exactly, far inside a safe integer.
    const accountId = await funded(MAX_MICRO_LYD);
    await client.extendCreditLine({ accountId, returnedTotalMicroLyd: 0, needMicroLyd: 0 });
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
    expect((await client.applyBills({ bills: [dearest], returns: [] })).outcomes).toMatchObject([{ applied: true, shortfallMicroLyd: 0 }]);
    expect(await client.getBalance({ accountId })).toEqual({ balanceMicroLyd: MAX_MICRO_LYD - 1_032_768_000 });
  });
});
