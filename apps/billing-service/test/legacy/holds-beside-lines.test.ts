import { Database } from '@gw/service-kit';
import { BillingTestApps, BillingTestClient, startBillingTestApps } from '../billing-test-db';

const DEADLINE_MS = 5000;

/** The older release's holds share an account's balance with its credit line, under one constraint. */
describe("the older release's Authorize beside a credit line (gRPC, Postgres)", () => {
  let t: BillingTestApps;
  let db: Database;
  let client: BillingTestClient;

  beforeAll(async () => {
    t = await startBillingTestApps(1, {}, DEADLINE_MS);
    [client] = t.clients;
    db = t.db;
  });
  afterAll(() => t?.close());

  it('holds an older edge’s Authorize only in what the line leaves, and counts the line in required', async () => {
    const accountId = 'acct_beside_line';
    await client.addBalance({ accountId, amountMicroLyd: 100_000 });
    await client.extendCreditLine({ accountId, returnedTotalMicroLyd: 0, needMicroLyd: 60_000 });
    const request = { requestId: 'req_beside_line', accountId, model: 'vendor-v4-flash', promptTokens: 10_000, maxTokens: 10_000 };
    expect(await client.authorize(request)).toEqual({ approved: false, balanceMicroLyd: 100_000, requiredMicroLyd: 50_000 + 60_000 });
    expect(await client.authorize({ ...request, maxTokens: 7500 })).toEqual({
      approved: true,
      balanceMicroLyd: 100_000,
      requiredMicroLyd: 40_000 + 60_000,
    });
    const { rows } = await db.query<{ balance: string; held: string; line: string }>(
      'SELECT balance_micro AS balance, held_micro AS held, line_micro AS line FROM billing.balances WHERE account_id = $1',
      [accountId],
    );
    expect(rows[0]).toEqual({ balance: '100000', held: '40000', line: '60000' });
  });

  it('lends the line only what a legacy hold leaves, and clamps charges beyond it without touching the hold', async () => {
    const accountId = 'acct_hold_outside_line';
    await client.addBalance({ accountId, amountMicroLyd: 10_000 });
    // A hold of 1,000 + 4 × 1,000 micro-LYD stays outside the line.
    await client.authorize({
      requestId: 'req_hold_outside_line',
      accountId,
      model: 'vendor-v4-flash',
      promptTokens: 1000,
      maxTokens: 1000,
    });
    expect(await client.extendCreditLine({ accountId, returnedTotalMicroLyd: 0, needMicroLyd: 0 })).toMatchObject({
      grantedTotalMicroLyd: 5000,
      heldMicroLyd: 5000,
    });
    // 7,500 billed against a line of 5,000: 2,500 of it a shortfall, the hold and the rest of the balance untouched.
    const bill = (n: number, promptTokens: number) => ({
      requestId: `req_beyond_line_${n}`,
      accountId,
      model: 'vendor-v4-flash',
      paid: true,
      promptTokens,
      completionTokens: 0,
      usageEstimated: false,
      heldMicroLyd: promptTokens,
      inputMicroLydPerMillion: 1_000_000,
      outputMicroLydPerMillion: 4_000_000,
      chargeMicroLyd: promptTokens,
    });
    const { outcomes } = await client.applyBills({ bills: [bill(1, 3000), bill(2, 4500)], returns: [] });
    expect(outcomes.map((o) => o.shortfallMicroLyd)).toEqual([0, 2500]);
    const { rows } = await db.query<{ balance: string; held: string; line: string }>(
      'SELECT balance_micro AS balance, held_micro AS held, line_micro AS line FROM billing.balances WHERE account_id = $1',
      [accountId],
    );
    expect(rows[0]).toEqual({ balance: '5000', held: '5000', line: '0' });
  });
});
