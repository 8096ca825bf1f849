import { status } from '@grpc/grpc-js';
import { MAX_COMPLETION_TOKENS, MAX_ID_LENGTH, MAX_MODEL_ID_LENGTH, MAX_PROMPT_TOKENS } from '@gw/bounds';
import { billingV1 } from '@gw/contracts';
import { MAX_MICRO_LYD, MAX_PRICE_MICRO_LYD_PER_MILLION } from '@gw/money';
import { clientChain, createLogger, Database, openDatabase, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { BillingApp, startBillingApp } from '../../src/billing-app';
import { loadConfig } from '../../src/config';

const DEADLINE_MS = 5000;
const id = (length: number, fill = 'i') => fill.repeat(length);

/**
 * Every count, amount and id billing.v1 takes has a bound (libs/bounds, libs/money): just past it
 * the call is refused with INVALID_ARGUMENT and nothing in Postgres changes; at it, it is taken.
 */
describe("billing.v1.Billing over gRPC: bounds of the older release's methods", () => {
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

  it('Authorize: prompt_tokens up to the context window, max_tokens up to 32,768, ids and model by length', async () => {
    const accountId = await funded();
    await refused(() => client.authorize(authorizeRequest(accountId, { promptTokens: MAX_PROMPT_TOKENS + 1 })));
    await refused(() => client.authorize(authorizeRequest(accountId, { promptTokens: 2 ** 62 })));
    await refused(() => client.authorize(authorizeRequest(accountId, { maxTokens: MAX_COMPLETION_TOKENS + 1 })));
    await refused(() => client.authorize(authorizeRequest(accountId, { requestId: id(MAX_ID_LENGTH + 1) })));
    await refused(() => client.authorize(authorizeRequest(id(MAX_ID_LENGTH + 1))));
    await refused(() => client.authorize(authorizeRequest(accountId, { model: id(MAX_MODEL_ID_LENGTH + 1, 'm') })));

    const longModel = id(MAX_MODEL_ID_LENGTH, 'm');
    await client.setPrice({ price: { model: longModel, inputMicroLydPerMillion: 1_000_000, outputMicroLydPerMillion: 1_000_000 } });
    const atBounds = authorizeRequest(accountId, {
      requestId: id(MAX_ID_LENGTH, 'r'),
      model: longModel,
      promptTokens: MAX_PROMPT_TOKENS,
      maxTokens: MAX_COMPLETION_TOKENS,
    });
    expect(await client.authorize(atBounds)).toMatchObject({ approved: true, requiredMicroLyd: MAX_PROMPT_TOKENS + MAX_COMPLETION_TOKENS });
  });

  it('Settle, SettleMany and RecordFree: prompt_tokens up to the context window, completion_tokens up to 32,768', async () => {
    const accountId = await funded();
    const hold = authorizeRequest(accountId, { promptTokens: MAX_PROMPT_TOKENS, maxTokens: MAX_COMPLETION_TOKENS });
    await client.authorize(hold);
    const usage = {
      requestId: hold.requestId,
      promptTokens: MAX_PROMPT_TOKENS,
      completionTokens: MAX_COMPLETION_TOKENS,
      usageEstimated: false,
    };
    await refused(() => client.settle({ ...usage, promptTokens: MAX_PROMPT_TOKENS + 1 }));
    await refused(() => client.settle({ ...usage, completionTokens: MAX_COMPLETION_TOKENS + 1 }));
    await refused(() => client.settle({ ...usage, completionTokens: 2 ** 62 }));
    const before = await state();
    expect((await client.settleMany({ requests: [{ ...usage, completionTokens: MAX_COMPLETION_TOKENS + 1 }] })).outcomes).toEqual([
      { settled: undefined, errorCode: status.INVALID_ARGUMENT, errorMessage: expect.stringContaining('completion_tokens') },
    ]);
    expect(await state()).toEqual(before);
    // 1,000,000 × 1 LYD + 32,768 × 4 LYD per million tokens: 1,131,072 micro-LYD.
    expect(await client.settle(usage)).toMatchObject({ chargedMicroLyd: 1_131_072 });

    const free = {
      requestId: `free_${++seq}`,
      accountId,
      model: 'vendor-v4-flash',
      promptTokens: MAX_PROMPT_TOKENS,
      completionTokens: MAX_COMPLETION_TOKENS,
      usageEstimated: false,
    };
    await refused(() => client.recordFree({ ...free, promptTokens: MAX_PROMPT_TOKENS + 1 }));
    await refused(() => client.recordFree({ ...free, completionTokens: MAX_COMPLETION_TOKENS + 1 }));
    await refused(() => client.recordFree({ ...free, model: id(MAX_MODEL_ID_LENGTH + 1, 'm') }));
    await refused(() => client.recordFree({ ...free, accountId: id(MAX_ID_LENGTH + 1) }));
    expect(await client.recordFree(free)).toEqual({ recorded: true });
  });

  it('ReleaseHold and RenewHolds: ids by length', async () => {
    const accountId = await funded();
    const hold = authorizeRequest(accountId);
    await client.authorize(hold);
    await refused(() => client.releaseHold({ requestId: id(MAX_ID_LENGTH + 1) }));
    await refused(() => client.renewHolds({ requestIds: [hold.requestId, id(MAX_ID_LENGTH + 1)] }));
    expect(await client.renewHolds({ requestIds: [hold.requestId, id(MAX_ID_LENGTH)] })).toEqual({ renewed: 1 });
    expect(await client.releaseHold({ requestId: id(MAX_ID_LENGTH) })).toEqual({ released: false });
  });

  it('the dearest request there can be is held and settled exactly', async () => {
    const price = {
      model: 'vendor-v4-bounds',
      inputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION,
      outputMicroLydPerMillion: MAX_PRICE_MICRO_LYD_PER_MILLION,
    };
    expect(await client.setPrice({ price })).toEqual({ price });
    const accountId = await funded(MAX_MICRO_LYD);
    const dearest = authorizeRequest(accountId, { model: price.model, promptTokens: MAX_PROMPT_TOKENS, maxTokens: MAX_COMPLETION_TOKENS });
    expect(await client.authorize(dearest)).toMatchObject({ approved: true, requiredMicroLyd: 1_032_768_000 });
    const usage = {
      requestId: dearest.requestId,
      promptTokens: MAX_PROMPT_TOKENS,
      completionTokens: MAX_COMPLETION_TOKENS,
      usageEstimated: false,
    };
    expect(await client.settle(usage)).toEqual({ chargedMicroLyd: 1_032_768_000, balanceMicroLyd: MAX_MICRO_LYD - 1_032_768_000 });
  });
});
