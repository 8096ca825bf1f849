import { credentials, status } from '@grpc/grpc-js';
import { MAX_COMPLETION_TOKENS, MAX_ID_LENGTH, MAX_MODEL_ID_LENGTH, MAX_PROMPT_TOKENS } from '@gw/bounds';
import { billingV1 } from '@gw/contracts';
import { MAX_MICRO_LYD, MAX_PRICE_MICRO_LYD_PER_MILLION } from '@gw/money';
import { createLogger, Database, openDatabase, unaryCall } from '@gw/service-kit';
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
  let client: billingV1.BillingClient;
  let seq = 0;

  const call = {
    authorize: (r: billingV1.AuthorizeRequest) => unaryCall(client.authorize.bind(client), r, DEADLINE_MS),
    settle: (r: billingV1.SettleRequest) => unaryCall(client.settle.bind(client), r, DEADLINE_MS),
    settleMany: (r: billingV1.SettleManyRequest) => unaryCall(client.settleMany.bind(client), r, DEADLINE_MS),
    recordFree: (r: billingV1.RecordFreeRequest) => unaryCall(client.recordFree.bind(client), r, DEADLINE_MS),
    releaseHold: (r: billingV1.ReleaseHoldRequest) => unaryCall(client.releaseHold.bind(client), r, DEADLINE_MS),
    renewHolds: (r: billingV1.RenewHoldsRequest) => unaryCall(client.renewHolds.bind(client), r, DEADLINE_MS),
    addBalance: (r: billingV1.AddBalanceRequest) => unaryCall(client.addBalance.bind(client), r, DEADLINE_MS),
    getBalance: (r: billingV1.GetBalanceRequest) => unaryCall(client.getBalance.bind(client), r, DEADLINE_MS),
    setPrice: (r: billingV1.SetPriceRequest) => unaryCall(client.setPrice.bind(client), r, DEADLINE_MS),
    extendCreditLine: (r: billingV1.ExtendCreditLineRequest) => unaryCall(client.extendCreditLine.bind(client), r, DEADLINE_MS),
    applyBills: (r: billingV1.ApplyBillsRequest) => unaryCall(client.applyBills.bind(client), r, DEADLINE_MS),
    listCharges: (r: billingV1.ListChargesRequest) => unaryCall(client.listCharges.bind(client), r, DEADLINE_MS),
    dailyTotals: (r: billingV1.DailyTotalsRequest) => unaryCall(client.dailyTotals.bind(client), r, DEADLINE_MS),
  };
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
    await call.addBalance({ accountId, amountMicroLyd: micro });
    return accountId;
  };
  const authorizeRequest = (accountId: string, overrides: Partial<billingV1.AuthorizeRequest> = {}): billingV1.AuthorizeRequest => ({
    requestId: `req_bounds_${++seq}`,
    accountId,
    model: 'vendor-v4-flash',
    promptTokens: 1000,
    maxTokens: 1000,
    ...overrides,
  });

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
    client = new billingV1.BillingClient(`127.0.0.1:${app.port}`, credentials.createInsecure());
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

  it('Authorize: prompt_tokens up to the context window, max_tokens up to 32,768, ids and model by length', async () => {
    const accountId = await funded();
    await refused(() => call.authorize(authorizeRequest(accountId, { promptTokens: MAX_PROMPT_TOKENS + 1 })));
    await refused(() => call.authorize(authorizeRequest(accountId, { promptTokens: 2 ** 62 })));
    await refused(() => call.authorize(authorizeRequest(accountId, { maxTokens: MAX_COMPLETION_TOKENS + 1 })));
    await refused(() => call.authorize(authorizeRequest(accountId, { requestId: id(MAX_ID_LENGTH + 1) })));
    await refused(() => call.authorize(authorizeRequest(id(MAX_ID_LENGTH + 1))));
    await refused(() => call.authorize(authorizeRequest(accountId, { model: id(MAX_MODEL_ID_LENGTH + 1, 'm') })));

    const longModel = id(MAX_MODEL_ID_LENGTH, 'm');
    await call.setPrice({ price: { model: longModel, inputMicroLydPerMillion: 1_000_000, outputMicroLydPerMillion: 1_000_000 } });
    const atBounds = authorizeRequest(accountId, {
      requestId: id(MAX_ID_LENGTH, 'r'),
      model: longModel,
      promptTokens: MAX_PROMPT_TOKENS,
      maxTokens: MAX_COMPLETION_TOKENS,
    });
    expect(await call.authorize(atBounds)).toMatchObject({ approved: true, requiredMicroLyd: MAX_PROMPT_TOKENS + MAX_COMPLETION_TOKENS });
    const longAccount = await call.addBalance({ accountId: id(MAX_ID_LENGTH, 'a'), amountMicroLyd: 1 });
    expect(longAccount).toEqual({ balanceMicroLyd: 1 });
  });

  it('Settle, SettleMany and RecordFree: prompt_tokens up to the context window, completion_tokens up to 32,768', async () => {
    const accountId = await funded();
    const hold = authorizeRequest(accountId, { promptTokens: MAX_PROMPT_TOKENS, maxTokens: MAX_COMPLETION_TOKENS });
    await call.authorize(hold);
    const usage = {
      requestId: hold.requestId,
      promptTokens: MAX_PROMPT_TOKENS,
      completionTokens: MAX_COMPLETION_TOKENS,
      usageEstimated: false,
    };
    await refused(() => call.settle({ ...usage, promptTokens: MAX_PROMPT_TOKENS + 1 }));
    await refused(() => call.settle({ ...usage, completionTokens: MAX_COMPLETION_TOKENS + 1 }));
    await refused(() => call.settle({ ...usage, completionTokens: 2 ** 62 }));
    const before = await state();
    expect((await call.settleMany({ requests: [{ ...usage, completionTokens: MAX_COMPLETION_TOKENS + 1 }] })).outcomes).toEqual([
      { settled: undefined, errorCode: status.INVALID_ARGUMENT, errorMessage: expect.stringContaining('completion_tokens') },
    ]);
    expect(await state()).toEqual(before);
    // 1,000,000 × 1 LYD + 32,768 × 4 LYD per million tokens: 1,131,072 micro-LYD.
    expect(await call.settle(usage)).toMatchObject({ chargedMicroLyd: 1_131_072 });

    const free = {
      requestId: `free_${++seq}`,
      accountId,
      model: 'vendor-v4-flash',
      promptTokens: MAX_PROMPT_TOKENS,
      completionTokens: MAX_COMPLETION_TOKENS,
      usageEstimated: false,
    };
    await refused(() => call.recordFree({ ...free, promptTokens: MAX_PROMPT_TOKENS + 1 }));
    await refused(() => call.recordFree({ ...free, completionTokens: MAX_COMPLETION_TOKENS + 1 }));
    await refused(() => call.recordFree({ ...free, model: id(MAX_MODEL_ID_LENGTH + 1, 'm') }));
    await refused(() => call.recordFree({ ...free, accountId: id(MAX_ID_LENGTH + 1) }));
    expect(await call.recordFree(free)).toEqual({ recorded: true });
  });

  it('ReleaseHold, RenewHolds, GetBalance, ListCharges and DailyTotals: ids by length, page and days by count', async () => {
    const accountId = await funded();
    const hold = authorizeRequest(accountId);
    await call.authorize(hold);
    await refused(() => call.releaseHold({ requestId: id(MAX_ID_LENGTH + 1) }));
    await refused(() => call.renewHolds({ requestIds: [hold.requestId, id(MAX_ID_LENGTH + 1)] }));
    expect(await call.renewHolds({ requestIds: [hold.requestId, id(MAX_ID_LENGTH)] })).toEqual({ renewed: 1 });
    expect(await call.releaseHold({ requestId: id(MAX_ID_LENGTH) })).toEqual({ released: false });
    await refused(() => call.getBalance({ accountId: id(MAX_ID_LENGTH + 1) }));
    expect(await call.getBalance({ accountId: id(MAX_ID_LENGTH) })).toEqual({ balanceMicroLyd: 0 });
    await refused(() => call.listCharges({ accountId, limit: 101, before: '' }));
    await refused(() => call.listCharges({ accountId, limit: 1, before: id(MAX_ID_LENGTH + 1) }));
    await refused(() => call.listCharges({ accountId: id(MAX_ID_LENGTH + 1), limit: 1, before: '' }));
    expect(await call.listCharges({ accountId, limit: 100, before: id(MAX_ID_LENGTH) })).toEqual({ charges: [], next: '' });
    await refused(() => call.dailyTotals({ accountId, days: 367 }));
    await refused(() => call.dailyTotals({ accountId: id(MAX_ID_LENGTH + 1), days: 1 }));
    expect((await call.dailyTotals({ accountId, days: 366 })).days).toHaveLength(366);
  });

  it('AddBalance: an amount within ±(2^53 - 1) micro-LYD; past it (2^53, 2^62) INVALID_ARGUMENT, not INTERNAL', async () => {
    const accountId = `acct_amount_${++seq}`;
    for (const amountMicroLyd of [MAX_MICRO_LYD + 1, -(MAX_MICRO_LYD + 1), 2 ** 62, -(2 ** 62)])
      await refused(() => call.addBalance({ accountId, amountMicroLyd }));
    await refused(() => call.addBalance({ accountId: id(MAX_ID_LENGTH + 1), amountMicroLyd: 1 }));
    expect(await call.addBalance({ accountId, amountMicroLyd: MAX_MICRO_LYD })).toEqual({ balanceMicroLyd: MAX_MICRO_LYD });
    expect(await call.addBalance({ accountId, amountMicroLyd: -MAX_MICRO_LYD })).toEqual({ balanceMicroLyd: 0 });
  });

  it('ExtendCreditLine and ApplyBills: amounts from 0 to 2^53 - 1, tokens, prices and ids by their bounds, at most 256 bills and returns', async () => {
    const accountId = await funded();
    const extend = { accountId, returnedTotalMicroLyd: 0, needMicroLyd: 0 };
    for (const amount of [-1, MAX_MICRO_LYD + 1, 2 ** 62]) {
      await refused(() => call.extendCreditLine({ ...extend, returnedTotalMicroLyd: amount }));
      await refused(() => call.extendCreditLine({ ...extend, needMicroLyd: amount }));
    }
    await refused(() => call.extendCreditLine({ ...extend, accountId: id(MAX_ID_LENGTH + 1) }));
    expect(
      await call.extendCreditLine({ accountId: id(MAX_ID_LENGTH, 'e'), returnedTotalMicroLyd: MAX_MICRO_LYD, needMicroLyd: MAX_MICRO_LYD }),
    ).toMatchObject({
      grantedTotalMicroLyd: 0,
    });
    expect(await call.extendCreditLine(extend)).toMatchObject({ grantedTotalMicroLyd: 10_000_000_000 });

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
    const { outcomes } = await call.applyBills({ bills: past.map((p) => ({ ...dearest, ...p })), returns: [] });
    expect(outcomes.map((o) => o.errorCode)).toEqual(past.map(() => status.INVALID_ARGUMENT));
    expect(await state()).toEqual(before);
    // A number past 2^53 - 1 cannot be decoded: the whole call is refused.
    await refused(() => call.applyBills({ bills: [dearest, { ...dearest, completionTokens: 2 ** 62 }], returns: [] }));
    await refused(() => call.applyBills({ bills: [dearest, { ...dearest, heldMicroLyd: MAX_MICRO_LYD + 1 }], returns: [] }));
    await refused(() => call.applyBills({ bills: [dearest], returns: [{ accountId, returnedTotalMicroLyd: MAX_MICRO_LYD + 1 }] }));
    await refused(() => call.applyBills({ bills: [dearest], returns: [{ accountId: id(MAX_ID_LENGTH + 1), returnedTotalMicroLyd: 1 }] }));
    await refused(() =>
      call.applyBills({ bills: [], returns: Array.from({ length: 257 }, () => ({ accountId, returnedTotalMicroLyd: 0 })) }),
    );
    await refused(() => call.applyBills({ bills: Array.from({ length: 257 }, () => dearest), returns: [] }));
    expect(
      await call.applyBills({ bills: [dearest], returns: [{ accountId, returnedTotalMicroLyd: MAX_MICRO_LYD - 10_000_000_000 }] }),
    ).toEqual({
      outcomes: [{ applied: true, repeated: false, shortfallMicroLyd: 0, errorCode: 0, errorMessage: '' }],
    });
  });

  it('SetPrice: each price up to 1,000 LYD per million tokens, the model id up to 128 characters', async () => {
    const price = {
      model: 'vendor-v4-bounds',
      inputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION,
      outputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION,
    };
    await refused(() => call.setPrice({ price: { ...price, inputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION + 1 } }));
    await refused(() => call.setPrice({ price: { ...price, outputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION + 1 } }));
    await refused(() => call.setPrice({ price: { ...price, outputMicroLydPerMillion: 2 ** 62 } }));
    await refused(() => call.setPrice({ price: { ...price, model: id(MAX_MODEL_ID_LENGTH + 1, 'm') } }));
    expect(await call.setPrice({ price })).toEqual({ price });

    // The dearest request there can be is held and charged exactly, far inside a safe integer.
    const accountId = await funded(MAX_MICRO_LYD);
    const dearest = authorizeRequest(accountId, { model: price.model, promptTokens: MAX_PROMPT_TOKENS, maxTokens: MAX_COMPLETION_TOKENS });
    expect(await call.authorize(dearest)).toMatchObject({ approved: true, requiredMicroLyd: 1_032_768_000 });
    const usage = {
      requestId: dearest.requestId,
      promptTokens: MAX_PROMPT_TOKENS,
      completionTokens: MAX_COMPLETION_TOKENS,
      usageEstimated: false,
    };
    expect(await call.settle(usage)).toEqual({ chargedMicroLyd: 1_032_768_000, balanceMicroLyd: MAX_MICRO_LYD - 1_032_768_000 });
  });
});
