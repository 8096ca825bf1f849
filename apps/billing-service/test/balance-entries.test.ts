import { status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, openDatabase, RpcClient, rpcClient, runMigrations } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { BillingApp, startBillingApp } from '../src/billing-app';
import { loadConfig } from '../src/config';
import { BILLING_MIGRATIONS } from '../src/store/migrations/billing-migrations';
import { PgMoneyAudit } from '../src/store/pg-money-audit';
import { codeOf } from './billing-test-db';

const DEADLINE_MS = 10_000;

type Billing = RpcClient<billingV1.BillingClient, billingV1.BillingService>;

interface Entry {
  account_id: string;
  amount_micro: string;
  kind: string;
  reason: string;
  made_by: string;
  idempotency_key: string | null;
  balance_after: string;
}

/**
 * Every balance movement is an entry: an opening entry for what each
 * balance held before entries were kept, an entry per operator change with its reason and who
 * asked, at most once per idempotency key (50 calls at once, and after a restart), and always
 * balance = entries - charges.
 */
describe('billing balance entries', () => {
  let testDb: TestDatabase;
  let db: Database;
  let app: BillingApp | undefined;
  let client: Billing | undefined;

  const start = async () => {
    const config = loadConfig({
      BILLING_METRICS_PORT: '0',
      BILLING_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      DATABASE_URL: testDb.url,
    });
    app = await startBillingApp(
      config,
      createLogger('billing-service', 'error', () => undefined),
    );
    const settings = { timeoutMs: DEADLINE_MS, chain: clientChain() };
    client = rpcClient(billingV1.BillingClient, `127.0.0.1:${app.port}`, { kind: 'insecure' }, 'billing-service', settings);
  };
  const stop = async () => {
    client?.close();
    await app?.stop();
    app = undefined;
  };
  const add = (accountId: string, amountMicroLyd: number, note?: billingV1.ChangeNote) =>
    (client as Billing).addBalance({ accountId, amountMicroLyd, note });
  const entries = async (accountId: string) =>
    (
      await db.query<Entry>(
        'SELECT account_id, amount_micro::text, kind, reason, made_by, idempotency_key, balance_after::text FROM billing.balance_entries WHERE account_id = $1 ORDER BY id',
        [accountId],
      )
    ).rows;
  const mismatches = async () => (await db.query('SELECT * FROM billing.balance_mismatches()')).rows;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
  });

  afterAll(async () => {
    await stop();
    await db?.close();
    await testDb?.drop();
  });

  it('opens each existing balance with an entry of the balance and its charges, so that they add up', async () => {
    await runMigrations(
      db,
      'billing',
      BILLING_MIGRATIONS.filter((m) => m.id < '020'),
    );
    await db.query(
      "INSERT INTO billing.balances (account_id, balance_micro) VALUES ('acct_open', 900), ('acct_spent', 0), ('acct_unused', 50)",
    );
    for (const [id, account, amount, paid] of [
      ['r1', 'acct_open', 60, true],
      ['r2', 'acct_open', 40, true],
      ['r3', 'acct_spent', 300, true],
      ['r4', 'acct_open', 0, false],
    ] as const) {
      await db.query(
        `INSERT INTO billing.ledger (request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million,
           output_micro_per_million, amount_micro, paid, usage_estimated, request_at)
         VALUES ($1, $2, 'vendor-v4-flash', 1, 1, 1000000, 4000000, $3, $4, false, now())`,
        [id, account, amount, paid],
      );
    }
    await start();
    expect(
      (
        await db.query(
          'SELECT account_id, amount_micro::text AS amount, kind, balance_after::text AS after FROM billing.balance_entries ORDER BY account_id',
        )
      ).rows,
    ).toEqual([
      { account_id: 'acct_open', amount: '1000', kind: 'opening', after: '900' },
      { account_id: 'acct_spent', amount: '300', kind: 'opening', after: '0' },
      { account_id: 'acct_unused', amount: '50', kind: 'opening', after: '50' },
    ]);
    expect(await mismatches()).toEqual([]);
  });

  it('writes an entry per change with its reason and who asked; a refused change writes none', async () => {
    expect(await add('acct_ops', 5_000, { reason: 'bank transfer 7731', idempotencyKey: '' })).toEqual({ balanceMicroLyd: 5_000 });
    expect(await add('acct_ops', -1_200, { reason: 'refund of a double transfer', idempotencyKey: '' })).toEqual({
      balanceMicroLyd: 3_800,
    });
    expect(await codeOf(add('acct_ops', -3_801))).toBe(status.FAILED_PRECONDITION);
    expect(await codeOf(add('acct_ops', 1, { reason: 'two\nlines', idempotencyKey: '' }))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(add('acct_ops', 1, { reason: 'x'.repeat(501), idempotencyKey: '' }))).toBe(status.INVALID_ARGUMENT);
    expect(await entries('acct_ops')).toEqual([
      {
        account_id: 'acct_ops',
        amount_micro: '5000',
        kind: 'top-up',
        reason: 'bank transfer 7731',
        made_by: 'unchecked',
        idempotency_key: null,
        balance_after: '5000',
      },
      {
        account_id: 'acct_ops',
        amount_micro: '-1200',
        kind: 'correction',
        reason: 'refund of a double transfer',
        made_by: 'unchecked',
        idempotency_key: null,
        balance_after: '3800',
      },
    ]);
    expect(await mismatches()).toEqual([]);
  });

  it('makes a change once under a key: 50 calls at once give one entry and 50 identical answers, also after a restart', async () => {
    await add('acct_key', 1_000);
    const note = { reason: 'top-up of invoice 12', idempotencyKey: 'invoice-12' };
    const answers = await Promise.all(Array.from({ length: 50 }, () => add('acct_key', 2_500, note)));
    expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify({ balanceMicroLyd: 3_500 })]));
    await add('acct_key', 100);
    await stop();
    await start();
    expect(await add('acct_key', 2_500, note)).toEqual({ balanceMicroLyd: 3_500 });
    expect(await codeOf(add('acct_key', 2_501, note))).toBe(status.ALREADY_EXISTS);
    expect(await codeOf(add('acct_other', 2_500, note))).toBe(status.ALREADY_EXISTS);
    expect(await codeOf(add('acct_key', 1, { reason: '', idempotencyKey: 'no spaces allowed' }))).toBe(status.INVALID_ARGUMENT);
    expect((await entries('acct_key')).map((e) => [e.amount_micro, e.idempotency_key])).toEqual([
      ['1000', null],
      ['2500', 'invoice-12'],
      ['100', null],
    ]);
    expect(
      (await db.query<{ b: string }>("SELECT balance_micro::text AS b FROM billing.balances WHERE account_id = 'acct_key'")).rows,
    ).toEqual([{ b: '3600' }]);
    expect(await entries('acct_other')).toEqual([]);
  });

  it('keeps balance = entries - charges through bills, their corrections and shortfalls', async () => {
    await add('acct_billed', 10_000);
    // At vendor-v4-flash's prices a prompt token costs 1 micro-LYD and a completion token 4.
    const bill = (requestId: string, promptTokens: number, completionTokens: number, usageEstimated: boolean): billingV1.Bill => ({
      requestId,
      accountId: 'acct_billed',
      model: 'vendor-v4-flash',
      paid: true,
      promptTokens,
      completionTokens,
      usageEstimated,
      heldMicroLyd: 100_000,
      inputMicroLydPerMillion: 1_000_000,
      outputMicroLydPerMillion: 4_000_000,
      chargeMicroLyd: promptTokens + 4 * completionTokens,
    });
    const apply = (bills: billingV1.Bill[]) => (client as Billing).applyBills({ bills, returns: [] });
    const first = await apply([bill('b1', 1_000, 500, true), bill('b2', 1_000, 250, false)]);
    expect(first.outcomes.map((o) => o.applied)).toEqual([true, true]);
    // The estimate replaced by the usage reported: 1,000 back.
    expect((await apply([bill('b1', 200, 200, false)])).outcomes[0].applied).toBe(true);
    // More than the 7,000 left: the rest is the ledger's shortfall, not a movement.
    const over = await apply([bill('b3', 10_000, 10_000, false)]);
    expect(over.outcomes[0].shortfallMicroLyd).toBe(43_000);
    expect(
      (await db.query<{ b: string }>("SELECT balance_micro::text AS b FROM billing.balances WHERE account_id = 'acct_billed'")).rows,
    ).toEqual([{ b: '0' }]);
    expect(await mismatches()).toEqual([]);

    // A balance moved behind the entries' back is found.
    await db.query("UPDATE billing.balances SET balance_micro = balance_micro + 7 WHERE account_id = 'acct_ops'");
    expect(await mismatches()).toEqual([{ account_id: 'acct_ops', balance: '3807', entries: '3800' }]);
    await db.query("UPDATE billing.balances SET balance_micro = balance_micro - 7 WHERE account_id = 'acct_ops'");

    // The correction of b1's estimate is on record; a charge edited after it is found, beside the balance it no longer adds up to.
    expect(
      (
        await db.query(
          "SELECT amount_before::text AS before, amount_after::text AS after FROM billing.charge_corrections WHERE request_id = 'b1'",
        )
      ).rows,
    ).toEqual([{ before: '3000', after: '1000' }]);
    await db.query("UPDATE billing.ledger SET amount_micro = 1500 WHERE request_id = 'b1'");
    expect((await new PgMoneyAudit(db).audit(10)).violations).toEqual([
      { kind: 'balance-not-entries', accountId: 'acct_billed', requestId: '', detail: 'balance 0 micro-LYD, entries less charges -500' },
      { kind: 'correction-not-charge', accountId: 'acct_billed', requestId: 'b1', detail: 'corrected to 1000 micro-LYD, charged 1500' },
      { kind: 'entry-without-link', accountId: 'acct_billed', requestId: 'b1', detail: 'charged 1500 micro-LYD, its links 1000' },
    ]);
  });
});
