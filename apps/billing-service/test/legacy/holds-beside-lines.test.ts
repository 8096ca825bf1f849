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
});
