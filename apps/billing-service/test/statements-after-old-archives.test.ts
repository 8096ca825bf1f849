import { createPublicKey } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { checkStatement } from '@gw/statement';
import { clientChain, createLogger, Database, openDatabase, rpcClient, runMigrations } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { BillingApp, startBillingApp } from '../src/billing-app';
import { loadConfig } from '../src/config';
import { BILLING_MIGRATIONS } from '../src/store/migrations/billing-migrations';
import { BillingTestClient, readStatement, TEST_AUDIT_KEY } from './billing-test-db';

const DAY_MS = 24 * 3600_000;
const monthStart = (offset: number) => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1);
};
const monthName = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const [M3, M2] = [monthStart(-3), monthStart(-2)];

/**
 * A deployment that archived a month before statements were kept (migration 040): that month's
 * rows are gone, so statements begin with the month after it, opening with what was charged in it
 * as first billed; the correction of its estimate, made the month after, stays a movement of
 * that month; and the statements still close at the balance.
 */
describe('statements after months archived before they were kept', () => {
  let testDb: TestDatabase;
  let db: Database;
  let app: BillingApp | undefined;
  let client: BillingTestClient;
  const accountId = 'acct_upgraded';

  const read = (month: string) => readStatement(client, accountId, month);

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
    await runMigrations(
      db,
      'billing',
      BILLING_MIGRATIONS.filter((m) => m.id < '040'),
    );
    // Three months ago a top-up of 10 LYD and an estimate of 5,000 micro-LYD, corrected to 6,000 two months ago; then a charge of 3,000.
    await db.query('INSERT INTO billing.balances (account_id, balance_micro) VALUES ($1, 9991000)', [accountId]);
    await db.query(
      "INSERT INTO billing.balance_entries (account_id, amount_micro, kind, balance_after, created_at) VALUES ($1, 10000000, 'top-up', 10000000, $2)",
      [accountId, new Date(M3 + DAY_MS)],
    );
    const row = `INSERT INTO billing.ledger (request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million,
        output_micro_per_million, amount_micro, paid, usage_estimated, created_at, request_at, end_reason)
      VALUES ($1, $2, 'vendor-v4-flash', 1000, $3, 1000000, 4000000, $4, true, false, $5, $5, 'complete')`;
    await db.query(row, ['req_old', accountId, 1250, 6000, new Date(M3 + 2 * DAY_MS)]);
    await db.query(row, ['req_kept', accountId, 500, 3000, new Date(M2 + 3 * DAY_MS)]);
    await db.query(
      `INSERT INTO billing.charge_corrections (request_id, request_at, account_id, prompt_before, completion_before, amount_before,
         shortfall_before, prompt_after, completion_after, amount_after, shortfall_after, created_at)
       VALUES ('req_old', $2, $1, 1000, 1000, 5000, 0, 1000, 1250, 6000, 0, $3)`,
      [accountId, new Date(M3 + 2 * DAY_MS), new Date(M2 + DAY_MS)],
    );
    // The month archived as ctl ledger archive did before statements were kept.
    await db.query('INSERT INTO billing.archived_charges (account_id, amount_micro) VALUES ($1, 6000)', [accountId]);
    await db.query(
      `INSERT INTO billing.archived_requests (request_id, request_at, account_id, paid, usage_estimated, amount_micro, shortfall_micro)
       VALUES ('req_old', $2, $1, true, false, 6000, 0)`,
      [accountId, new Date(M3 + 2 * DAY_MS)],
    );
    await db.query("INSERT INTO billing.ledger_archives (month, rows, amount_micro, sha256) VALUES ($1, 1, 6000, 'f00d')", [
      monthName(M3) + '-01',
    ]);
    await db.query("DELETE FROM billing.ledger WHERE request_id = 'req_old'");

    app = await startBillingApp(
      loadConfig({
        BILLING_METRICS_PORT: '0',
        BILLING_PORT: '0',
        BIND_HOST: '127.0.0.1',
        GRPC_INSECURE: 'true',
        DATABASE_URL: testDb.url,
        AUDIT_KEY: TEST_AUDIT_KEY,
        STATEMENT_SIGNING_KEY: '3c'.repeat(32),
        BILL_LATE_WINDOW_MS: '60000',
      }),
      createLogger('billing-service', 'error', () => undefined),
    );
    client = rpcClient(billingV1.BillingClient, `127.0.0.1:${app.port}`, { kind: 'insecure' }, 'billing-service', {
      timeoutMs: 10_000,
      chain: clientChain(),
    });
  });

  afterAll(async () => {
    client?.close();
    await app?.stop();
    await db?.close();
    await testDb?.drop();
  });

  it('begins with the month after the archived one, opening with its charges as first billed', async () => {
    const { months } = await client.listStatements({ accountId });
    expect(months.at(-1)).toEqual({ month: monthName(M2), provisional: false });
    expect(await read(monthName(M3))).toEqual({ text: '', code: status.FAILED_PRECONDITION });

    const { text } = await read(monthName(M2));
    const check = checkStatement(text, createPublicKey((await client.getStatementKey({})).publicKeyPem));
    expect(check).toMatchObject({ ok: true, summary: { openingMicro: 9_995_000, closingMicro: 9_991_000, movements: 2 } });
    expect(
      text
        .split('\n')
        .slice(2, 4)
        .map((l) => l.split(',').slice(3, 5).concat(l.split(',').slice(13, 16))),
    ).toEqual([
      ['estimate-corrected', 'req_old', '-0.001000', '0.000000', '9.994000'],
      ['charge', 'req_kept', '-0.003000', '0.000000', '9.991000'],
    ]);
    const now = await read(monthName(monthStart(0)));
    expect(checkStatement(now.text)).toMatchObject({ ok: true, summary: { openingMicro: 9_991_000, closingMicro: 9_991_000 } });
    expect((await client.getBalance({ accountId })).balanceMicroLyd).toBe(9_991_000);
  });
});
