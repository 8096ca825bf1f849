import { createHash, createPublicKey, KeyObject, randomBytes } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { checkStatement, StatementReader, StatementRow } from '@gw/statement';
import { clientChain, createLogger, Database, Env, openDatabase, rpcClient } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { BillingApp, startBillingApp } from '../src/billing-app';
import { loadConfig } from '../src/config';
import { BillingTestClient, codeOf, readStatement, TEST_AUDIT_KEY } from './billing-test-db';

const DEADLINE_MS = 10_000;
const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
const SIGNING_SEED = 'a7'.repeat(32);

function uuid7At(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0') + randomBytes(10).toString('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const monthStart = (offset: number) => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1);
};
const monthName = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const [M3, M2, M1, M0] = [monthStart(-3), monthStart(-2), monthStart(-1), monthStart(0)];

/**
 * Holders' monthly statements over billing.v1 on Postgres: every kind of movement in the month it
 * is listed in, opening where the month before closed, the current month closing at the balance the
 * money audit checks, signed with STATEMENT_SIGNING_KEY; a final month kept when first read and
 * given the same, byte for byte, after its month was archived; a kept statement changed in the
 * database never signed.
 *
 * Two replicas share the database: `filing`, whose late-bill window (200 days) files bills of months
 * ago, and `reading`, whose window (60 s) makes every month before this one final. Balance entries
 * and corrections are dated back by SQL after they are made (their `created_at` only: a test cannot
 * wait months), as the console's money test dates ledger rows.
 */
describe('monthly statements over billing.v1', () => {
  let testDb: TestDatabase;
  let db: Database;
  const apps: BillingApp[] = [];
  let filing: BillingTestClient;
  let reading: BillingTestClient;
  let publicKey: KeyObject;
  const holder = `acct_${randomBytes(4).toString('hex')}`;
  const ids = { c1: uuid7At(M3 + DAY_MS + HOUR_MS), e2: uuid7At(M3 + DAY_MS + 2 * HOUR_MS), free: '', e4: '', c6: '' };

  const start = async (env: Env): Promise<BillingTestClient> => {
    const config = loadConfig({
      BILLING_METRICS_PORT: '0',
      BILLING_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      DATABASE_URL: testDb.url,
      AUDIT_KEY: TEST_AUDIT_KEY,
      STATEMENT_SIGNING_KEY: SIGNING_SEED,
      SHUTDOWN_GRACE_MS: '500',
      ...env,
    });
    const app = await startBillingApp(
      config,
      createLogger('billing-service', 'error', () => undefined),
    );
    apps.push(app);
    return rpcClient(billingV1.BillingClient, `127.0.0.1:${app.port}`, { kind: 'insecure' }, 'billing-service', {
      timeoutMs: DEADLINE_MS,
      chain: clientChain(),
    });
  };
  const bill = (requestId: string, accountId: string, tokens: number, admittedAtMs: number, more: Partial<billingV1.Bill> = {}) => ({
    requestId,
    accountId,
    model: 'vendor-v4-flash',
    paid: true,
    promptTokens: tokens,
    completionTokens: tokens,
    usageEstimated: false,
    heldMicroLyd: 10_000_000,
    inputMicroLydPerMillion: 1_000_000,
    outputMicroLydPerMillion: 4_000_000,
    chargeMicroLyd: 5 * tokens,
    endReason: billingV1.EndReason.END_REASON_COMPLETE,
    admittedAtMs,
    ...more,
  });
  const apply = async (...bills: billingV1.Bill[]) => {
    const { outcomes } = await filing.applyBills({ bills, returns: [] });
    expect(outcomes.map((o) => o.applied)).toEqual(bills.map(() => true));
  };
  const addBalance = async (accountId: string, micro: number, at: number | undefined, reason = '') => {
    await filing.addBalance({ accountId, amountMicroLyd: micro, note: { reason, idempotencyKey: '' } });
    if (at !== undefined)
      await db.query(
        'UPDATE billing.balance_entries SET created_at = $2 WHERE id = (SELECT max(id) FROM billing.balance_entries WHERE account_id = $1)',
        [accountId, new Date(at)],
      );
  };
  const correctionAt = (requestId: string, at: number) =>
    db.query('UPDATE billing.charge_corrections SET created_at = $2 WHERE request_id = $1', [requestId, new Date(at)]);
  /** The statement as read, checked with the published key, and its movement rows. */
  const statement = async (accountId: string, month: string) => {
    const { text, code } = await readStatement(reading, accountId, month);
    expect(code).toBeUndefined();
    const reader = new StatementReader(1000);
    reader.push(text);
    const check = reader.finish(publicKey);
    if (!check.ok) throw new Error(`${check.code}: ${check.message}`);
    return { text, ...check.summary, rows: reader.movements };
  };
  const row = (r: StatementRow) => [r.kind, r.request_id, r.usage, r.amount_lyd, r.balance_lyd];

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
    filing = await start({ BILL_LATE_WINDOW_MS: String(200 * DAY_MS) });
    reading = await start({ BILL_LATE_WINDOW_MS: '60000' });
    const key = await reading.getStatementKey({});
    publicKey = createPublicKey(key.publicKeyPem);
    expect(key.keyId).toMatch(/^[0-9a-f]{16}$/);

    // Three months ago: a top-up, a charge, an estimate corrected the same month, a free request, an estimate corrected the month after.
    await addBalance(holder, 10_000_000, M3 + DAY_MS, 'invoice 1, paid');
    await apply(bill(ids.c1, holder, 1000, M3 + DAY_MS + HOUR_MS));
    const estimated = { usageEstimated: true, endReason: billingV1.EndReason.END_REASON_RECOVERED };
    await apply(bill(ids.e2, holder, 2000, M3 + DAY_MS + 2 * HOUR_MS, estimated));
    await apply(bill(ids.e2, holder, 1500, M3 + DAY_MS + 2 * HOUR_MS));
    await correctionAt(ids.e2, M3 + DAY_MS + 3 * HOUR_MS);
    ids.free = uuid7At(M3 + DAY_MS + 4 * HOUR_MS);
    await apply(
      bill(ids.free, holder, 300, M3 + DAY_MS + 4 * HOUR_MS, {
        paid: false,
        chargeMicroLyd: 0,
        heldMicroLyd: 0,
        inputMicroLydPerMillion: 0,
        outputMicroLydPerMillion: 0,
      }),
    );
    ids.e4 = uuid7At(M3 + 10 * DAY_MS);
    await apply(bill(ids.e4, holder, 1000, M3 + 10 * DAY_MS, estimated));
    // Two months ago: that estimate's correction, and the operator's correction.
    await apply(bill(ids.e4, holder, 1200, M3 + 10 * DAY_MS));
    await correctionAt(ids.e4, M2 + DAY_MS);
    await addBalance(holder, -1_000_000, M2 + 2 * DAY_MS, 'refund of invoice 1');
    // This month: a top-up and a charge.
    await addBalance(holder, 1_000_000, undefined);
    ids.c6 = uuid7At(Date.now());
    await apply(bill(ids.c6, holder, 100, Date.now()));
  }, 60_000);

  afterAll(async () => {
    filing?.close();
    reading?.close();
    await Promise.all(apps.map((app) => app.stop()));
    await db?.close();
    await testDb?.drop();
  });

  let first: string;

  it('lists every movement in the month it is filed under, each with the balance after it, from an opening of 0', async () => {
    const s = await statement(holder, monthName(M3));
    first = s.text;
    expect(s).toMatchObject({ accountId: holder, month: monthName(M3), status: 'final', openingMicro: 0, closingMicro: 9_982_500 });
    expect(s.rows.map(row)).toEqual([
      ['top-up', '', '', '10.000000', '10.000000'],
      ['charge', ids.c1, 'reported', '-0.005000', '9.995000'],
      // As first billed: the estimate, and then what the reported usage gave back.
      ['charge', ids.e2, 'estimated', '-0.010000', '9.985000'],
      ['estimate-corrected', ids.e2, 'reported', '0.002500', '9.987500'],
      ['charge', ids.free, 'reported', '0.000000', '9.987500'],
      ['charge', ids.e4, 'estimated', '-0.005000', '9.982500'],
    ]);
    expect(s.rows[0].note).toBe('invoice 1, paid');
    expect(s.rows[1]).toMatchObject({
      time: new Date(M3 + DAY_MS + HOUR_MS).toISOString().replace('Z', '000Z'),
      model: 'vendor-v4-flash',
      prompt_tokens: '1000',
      completion_tokens: '1000',
      input_lyd_per_million: '1.000000',
      output_lyd_per_million: '4.000000',
      end_reason: 'complete',
      paid: 'paid',
      shortfall_lyd: '0.000000',
    });
    expect(s.rows[2]).toMatchObject({ prompt_tokens: '2000', completion_tokens: '2000', end_reason: 'complete' });
    expect(s.rows[3]).toMatchObject({ prompt_tokens: '1500', completion_tokens: '1500', model: '' });
    expect(s.rows[4]).toMatchObject({ paid: 'free', prompt_tokens: '300' });
  });

  it('opens each month where the month before closed, across a month without movements, to the balance the audit checks', async () => {
    const two = await statement(holder, monthName(M2));
    expect(two).toMatchObject({ status: 'final', openingMicro: 9_982_500, closingMicro: 8_981_500 });
    // A correction in the month it was made: the estimate it corrects was charged the month before.
    expect(two.rows.map(row)).toEqual([
      ['estimate-corrected', ids.e4, 'reported', '-0.001000', '9.981500'],
      ['operator-correction', '', '', '-1.000000', '8.981500'],
    ]);
    const one = await statement(holder, monthName(M1));
    expect(one).toMatchObject({ openingMicro: 8_981_500, closingMicro: 8_981_500, movements: 0 });
    const now = await statement(holder, monthName(M0));
    expect(now).toMatchObject({ status: 'provisional', openingMicro: 8_981_500, movements: 2 });
    expect(now.rows.map(row)).toEqual([
      ['top-up', '', '', '1.000000', '9.981500'],
      ['charge', ids.c6, 'reported', '-0.000500', '9.981000'],
    ]);
    expect(now.closingMicro).toBe((await reading.getBalance({ accountId: holder })).balanceMicroLyd);
    expect((await reading.auditMoney({})).violations).toEqual([]);
  });

  it('lists the months from the first in which the balance moved, newest first, final once the late-bill window has passed', async () => {
    const { months } = await reading.listStatements({ accountId: holder });
    expect(months.map((m) => m.month)).toEqual([M0, M1, M2, M3].map(monthName));
    expect(months[0].provisional).toBe(true);
    expect(months.slice(2).map((m) => m.provisional)).toEqual([false, false]);
    // The other replica's late-bill window keeps them all open.
    expect((await filing.listStatements({ accountId: holder })).months.every((m) => m.provisional)).toBe(true);
  });

  it('keeps a final month when it is first read and gives it byte for byte after its month is archived', async () => {
    const kept = await db.query<{ month: string; closing: string }>(
      "SELECT to_char(month, 'YYYY-MM') AS month, closing_micro::text AS closing FROM billing.kept_statements WHERE account_id = $1 ORDER BY month",
      [holder],
    );
    expect(kept.rows).toEqual([
      { month: monthName(M3), closing: '9982500' },
      { month: monthName(M2), closing: '8981500' },
      ...(Date.now() >= M0 + 60_000 ? [{ month: monthName(M1), closing: '8981500' }] : []),
    ]);
    expect((await readStatement(reading, holder, monthName(M3))).text).toBe(first);

    // An account whose only month is archived before anyone read it: kept by the archive.
    const quiet = `acct_${randomBytes(4).toString('hex')}`;
    await addBalance(quiet, 1_000_000, M3 + 2 * DAY_MS);
    const quietCharge = uuid7At(M3 + 3 * DAY_MS);
    await apply(bill(quietCharge, quiet, 100, M3 + 3 * DAY_MS));

    const before = monthName(M2);
    const lines: string[] = [];
    let after = '';
    do {
      const page = await reading.readLedgerArchive({ before, after, limit: 2 });
      if (!after) lines.push(page.header);
      lines.push(...page.lines);
      after = page.next;
    } while (after);
    const sha256 = createHash('sha256')
      .update(lines.map((l) => `${l}\n`).join(''))
      .digest('hex');
    const dropped = await reading.dropLedgerMonths({ before, rows: lines.length - 1, sha256 });
    expect(dropped.months).toContain(monthName(M3));
    expect((await db.query('SELECT 1 FROM billing.ledger WHERE account_id = ANY ($1)', [[holder, quiet]])).rows).toHaveLength(1);

    expect((await readStatement(reading, holder, monthName(M3))).text).toBe(first);
    const quietThen = await statement(quiet, monthName(M3));
    expect(quietThen).toMatchObject({ status: 'final', openingMicro: 0, closingMicro: 999_500 });
    expect(quietThen.rows.map(row)).toEqual([
      ['top-up', '', '', '1.000000', '1.000000'],
      ['charge', quietCharge, 'reported', '-0.000500', '0.999500'],
    ]);
    expect(await statement(quiet, monthName(M2))).toMatchObject({ openingMicro: 999_500, closingMicro: 999_500 });
    // Later months open as they did, the charges now archived.
    expect(await statement(holder, monthName(M0))).toMatchObject({ openingMicro: 8_981_500, closingMicro: 9_981_000 });
    expect((await reading.auditMoney({})).violations).toEqual([]);
  });

  it('records a shortfall where the balance could not carry a charge', async () => {
    const short = `acct_${randomBytes(4).toString('hex')}`;
    await addBalance(short, 1000, undefined);
    const id = uuid7At(Date.now());
    await apply(bill(id, short, 1000, Date.now()));
    const s = await statement(short, monthName(M0));
    expect(s.rows.map((r) => [r.kind, r.amount_lyd, r.shortfall_lyd, r.balance_lyd])).toEqual([
      ['top-up', '0.001000', '', '0.001000'],
      ['charge', '-0.001000', '0.004000', '0.000000'],
    ]);
  });

  it('gives an account without movements a statement of 0, this month provisional and past ones final', async () => {
    const idle = `acct_${randomBytes(4).toString('hex')}`;
    expect((await reading.listStatements({ accountId: idle })).months).toEqual([{ month: monthName(M0), provisional: true }]);
    expect(await statement(idle, monthName(M0))).toMatchObject({ status: 'provisional', openingMicro: 0, closingMicro: 0, movements: 0 });
    expect(await statement(idle, monthName(M2))).toMatchObject({ status: 'final', openingMicro: 0, closingMicro: 0, movements: 0 });
  });

  it('refuses a month that is not YYYY-MM or has not begun, and an account id that is not one', async () => {
    for (const month of ['2026-13', '2026-1', '', monthName(monthStart(1))])
      expect(await readStatement(reading, holder, month)).toEqual({ text: '', code: status.INVALID_ARGUMENT });
    expect((await readStatement(reading, '', monthName(M0))).code).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(reading.listStatements({ accountId: '' }))).toBe(status.INVALID_ARGUMENT);
  });

  it('never signs a kept statement changed in the database, even with its digest made to match', async () => {
    const month = monthName(M3);
    const good = await readStatement(reading, holder, month);
    expect(checkStatement(good.text, publicKey).ok).toBe(true);
    await db.query(
      `UPDATE billing.kept_statement_parts SET lines = replace(lines, ',-0.005000,0.000000,9.995000,', ',-0.004000,0.000000,9.996000,')
       WHERE account_id = $1 AND month = to_date($2, 'YYYY-MM')`,
      [holder, month],
    );
    await db.query(
      `UPDATE billing.kept_statements k SET sha256 = (SELECT encode(sha256(convert_to(string_agg(p.lines, '' ORDER BY p.part), 'UTF8')), 'hex')
         FROM billing.kept_statement_parts p WHERE p.account_id = k.account_id AND p.month = k.month)
       WHERE k.account_id = $1 AND k.month = to_date($2, 'YYYY-MM')`,
      [holder, month],
    );
    const changed = await readStatement(reading, holder, month);
    expect(changed.code).toBe(status.INTERNAL);
    expect(changed.text).not.toContain(',signature,');
  });
});
