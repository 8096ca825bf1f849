import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, openDatabase, RpcClient, rpcClient, runMigrations } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { BillingApp, startBillingApp } from '../src/billing-app';
import { loadConfig } from '../src/config';
import { BILLING_MIGRATIONS } from '../src/store/migrations/billing-migrations';
import { PgAccountMoneyReads } from '../src/store/pg-account-money-reads';
import { codeOf } from './billing-test-db';

const DEADLINE_MS = 10_000;
const DAY_MS = 24 * 3600_000;

/** A UUIDv7 of the time given, as the edge makes billing ids. */
function uuid7At(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0') + randomBytes(10).toString('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The start of the UTC month `offset` months from now's, in ms. */
function monthStart(offset: number, now = Date.now()): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1);
}
const monthName = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const partitionOf = (ms: number) => `billing.ledger_${monthName(ms).replace('-', '_')}`;

/**
 * The ledger by month: an existing ledger moved into its months row for row,
 * a request id billed at most once in the whole ledger, and months archived over billing.v1
 * (ReadLedgerArchive, DropLedgerMonths) only when the archive matches, the charges of the months
 * kept read unchanged.
 */
describe('billing.ledger by month', () => {
  let testDb: TestDatabase;
  let db: Database;
  let app: BillingApp | undefined;
  let client: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  let dir: string;

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
  const apply = (bills: billingV1.Bill[]) => client.applyBills({ bills, returns: [] });
  const bill = (requestId: string, accountId: string, tokens: number): billingV1.Bill => ({
    requestId,
    accountId,
    model: 'vendor-v4-flash',
    paid: true,
    promptTokens: tokens,
    completionTokens: tokens,
    usageEstimated: false,
    heldMicroLyd: 1_000_000,
    inputMicroLydPerMillion: 1_000_000,
    outputMicroLydPerMillion: 4_000_000,
    chargeMicroLyd: 5 * tokens,
  });
  const rowsOf = async (accountId: string) =>
    (
      await db.query<{ request_id: string; part: string; amount_micro: string }>(
        'SELECT request_id, tableoid::regclass::text AS part, amount_micro FROM billing.ledger WHERE account_id = $1 ORDER BY request_id',
        [accountId],
      )
    ).rows;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
    dir = mkdtempSync(join(tmpdir(), 'ledger-months-'));
  });

  afterAll(async () => {
    client?.close();
    await app?.stop();
    await db?.close();
    await testDb?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('moves a ledger with rows in three months into its months, row for row, and bills none of them again', async () => {
    await runMigrations(
      db,
      'billing',
      BILLING_MIGRATIONS.filter((m) => m.id < '013'),
    );
    await db.query("INSERT INTO billing.balances (account_id, balance_micro) VALUES ('acct_old', 10000000)");
    const times = [monthStart(-3) + 5 * DAY_MS, monthStart(-2) + 1, monthStart(-1) - 1, monthStart(-1) + 3 * DAY_MS];
    const oldIds = times.map((_, i) => `req_old_${i}`);
    for (const [i, at] of times.entries()) {
      await db.query(
        `INSERT INTO billing.ledger (request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million,
           output_micro_per_million, amount_micro, paid, usage_estimated, created_at)
         VALUES ($1, 'acct_old', 'vendor-v4-flash', $2, 1, 1000000, 4000000, $3, true, false, $4)`,
        [oldIds[i], 10 + i, 14 + i, new Date(at)],
      );
    }
    // A billing id the edge made: its time in it, its row written a second later.
    const v7 = uuid7At(monthStart(-2) + 2 * DAY_MS);
    await db.query(
      `INSERT INTO billing.ledger (request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million,
         output_micro_per_million, amount_micro, paid, usage_estimated, created_at)
       VALUES ($1, 'acct_old', 'vendor-v4-flash', 5, 5, 1000000, 4000000, 25, true, false, $2)`,
      [v7, new Date(monthStart(-2) + 2 * DAY_MS + 1000)],
    );
    const columns =
      'request_id, account_id, model, prompt_tokens, completion_tokens, amount_micro, held_micro, shortfall_micro, paid, usage_estimated, created_at';
    const before = (await db.query(`SELECT ${columns} FROM billing.ledger ORDER BY request_id`)).rows;

    await start();

    expect((await db.query(`SELECT ${columns} FROM billing.ledger ORDER BY request_id`)).rows).toEqual(before);
    expect(await rowsOf('acct_old')).toEqual(
      [
        { request_id: 'req_old_0', part: partitionOf(times[0]), amount_micro: '14' },
        { request_id: 'req_old_1', part: partitionOf(times[1]), amount_micro: '15' },
        { request_id: 'req_old_2', part: partitionOf(times[2]), amount_micro: '16' },
        { request_id: 'req_old_3', part: partitionOf(times[3]), amount_micro: '17' },
        { request_id: v7, part: partitionOf(monthStart(-2)), amount_micro: '25' },
      ].sort((a, b) => a.request_id.localeCompare(b.request_id)),
    );
    const months = (
      await db.query<{ name: string }>(
        "SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'billing.ledger'::regclass ORDER BY 1",
      )
    ).rows.map((r) => `billing.${r.name}`);
    expect(months).toEqual(expect.arrayContaining([0, 1, 2].map((k) => partitionOf(monthStart(k)))));

    // Each of them billed again (a late resend): the row it has, nothing new, no money moved.
    const again = await apply([...oldIds, v7].map((id) => bill(id, 'acct_old', 1)));
    expect(again.outcomes.map((o) => o.repeated)).toEqual([true, true, true, true, true]);
    expect(await rowsOf('acct_old')).toHaveLength(5);
    expect(
      (await db.query<{ b: string }>("SELECT balance_micro::text AS b FROM billing.balances WHERE account_id = 'acct_old'")).rows,
    ).toEqual([{ b: '10000000' }]);
  });

  it('bills a request id once across the months whatever arrives at once: billing ids of two months, older ids, twice each', async () => {
    await client.addBalance({ accountId: 'acct_twice', amountMicroLyd: 10_000_000 });
    const ids = [uuid7At(monthStart(-1) + DAY_MS), uuid7At(monthStart(0) + 1), `req_plain_${randomBytes(4).toString('hex')}`];
    // Admitted now by quota-service: the time inside a billing id (an edge's clock) decides nothing.
    const admittedAtMs = Date.now();
    const bills = ids.map((id) => ({ ...bill(id, 'acct_twice', 100), admittedAtMs }));
    const outcomes = (await Promise.all([apply(bills), apply([...bills].reverse()), apply(bills)])).flatMap((r) => r.outcomes);
    expect(outcomes.filter((o) => o.applied)).toHaveLength(3);
    expect(outcomes.filter((o) => o.repeated)).toHaveLength(6);
    const rows = await rowsOf('acct_twice');
    expect(rows.map((r) => r.request_id).sort()).toEqual([...ids].sort());
    expect(rows.find((r) => r.request_id === ids[0])?.part).toBe(partitionOf(admittedAtMs));
    expect(
      (await db.query<{ b: string }>("SELECT balance_micro::text AS b FROM billing.balances WHERE account_id = 'acct_twice'")).rows,
    ).toEqual([{ b: String(10_000_000 - 3 * 500) }]);
  });

  it('archives the months before one: the pages are the rows, the drop needs their digest, the months kept read as before', async () => {
    const before = monthName(monthStart(-1));
    const reads = new PgAccountMoneyReads(db);
    const chargesBefore = await reads.charges('acct_old', 100, undefined);
    const daysBefore = await reads.dailyTotals('acct_old', 120);
    const read = async (after: string) => client.readLedgerArchive({ before, after, limit: 2 });
    let page = await read('');
    const lines = [page.header, ...page.lines];
    while (page.next) {
      page = await read(page.next);
      lines.push(...page.lines);
    }
    const archived = (
      await db.query<{ request_id: string }>(
        'SELECT request_id FROM billing.ledger WHERE request_at < $1 ORDER BY request_at, request_id',
        [new Date(monthStart(-1))],
      )
    ).rows;
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(archived.map((r) => r.request_id));
    expect(archived.length).toBe(4);
    const text = lines.map((l) => `${l}\n`).join('');
    const sha256 = createHash('sha256').update(text).digest('hex');

    // A database takes the file as it is.
    const file = join(dir, 'archive.csv');
    writeFileSync(file, text);
    await db.query(
      `CREATE TABLE billing.archive_import (${page.header
        .split(',')
        .map((c) => `${c} text`)
        .join(', ')})`,
    );
    execFileSync('psql', [
      testDb.url,
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      `\\copy billing.archive_import FROM '${file}' WITH (FORMAT csv, HEADER)`,
    ]);
    expect((await db.query('SELECT request_id FROM billing.archive_import ORDER BY request_at, request_id')).rows).toEqual(archived);
    expect(
      (
        await db.query<{ same: boolean }>(
          'SELECT count(*) = 4 AS same FROM billing.archive_import a JOIN billing.ledger l ON l.request_id = a.request_id AND l.created_at = a.created_at::timestamptz AND l.amount_micro = a.amount_micro::bigint',
        )
      ).rows[0].same,
    ).toBe(true);

    const drop = (rows: number, digest: string) => client.dropLedgerMonths({ before, rows, sha256: digest });
    expect(await codeOf(drop(4, createHash('sha256').update(`${text}x`).digest('hex')))).toBe(status.FAILED_PRECONDITION);
    expect(await codeOf(drop(3, sha256))).toBe(status.FAILED_PRECONDITION);
    expect(await codeOf(client.dropLedgerMonths({ before: monthName(monthStart(1)), rows: 0, sha256 }))).toBe(status.FAILED_PRECONDITION);
    expect(await codeOf(client.readLedgerArchive({ before: '2026-13', after: '', limit: 1 }))).toBe(status.INVALID_ARGUMENT);
    expect((await db.query('SELECT 1 FROM billing.ledger WHERE request_at < $1', [new Date(monthStart(-1))])).rows).toHaveLength(4);

    const dropped = await drop(4, sha256);
    expect(dropped).toEqual({ months: [monthName(monthStart(-3)), monthName(monthStart(-2))], rows: 4, amountMicroLyd: 14 + 15 + 16 + 25 });
    expect((await db.query('SELECT 1 FROM billing.ledger WHERE request_at < $1', [new Date(monthStart(-1))])).rows).toHaveLength(0);
    expect(
      (await db.query("SELECT to_char(month, 'YYYY-MM') AS month, rows::int, sha256 FROM billing.ledger_archives ORDER BY month")).rows,
    ).toEqual([
      { month: monthName(monthStart(-3)), rows: 1, sha256 },
      { month: monthName(monthStart(-2)), rows: 3, sha256 },
    ]);
    expect((await db.query('SELECT * FROM billing.balance_mismatches()')).rows).toEqual([]);
    // The archive is a link of the chain (the file's digest and rows, each account's charges moved), and the books still match their links.
    expect((await db.query("SELECT details FROM billing.audit_log WHERE action = 'ledger-archived'")).rows).toEqual([
      { details: expect.objectContaining({ fileRows: 4, sha256, amountMicro: String(14 + 15 + 16 + 25) }) },
    ]);
    expect((await client.auditMoney({})).violations).toEqual([]);
    expect(await reads.charges('acct_old', 100, undefined)).toEqual(
      chargesBefore.filter((c) => !archived.some((a) => a.request_id === c.requestId)),
    );
    const keptDay = monthName(monthStart(-1));
    const kept = (days: typeof daysBefore) => days.filter((d) => d.day >= `${keptDay}-01`);
    expect(kept(await reads.dailyTotals('acct_old', 120))).toEqual(kept(daysBefore));

    // A bill of an archived month is not filed, and not taken as billed either: it is set aside; its month is not made again.
    const lateId = uuid7At(monthStart(-3) + DAY_MS);
    const late = await apply([bill(lateId, 'acct_old', 1)]);
    expect(late.outcomes[0]).toMatchObject({ applied: false, repeated: false, setAside: true });
    expect((await client.listSetAsideBills({ after: '', limit: 10 })).bills.map((b) => b.bill?.requestId)).toEqual([lateId]);
    expect((await db.query('SELECT 1 FROM billing.ledger WHERE request_at < $1', [new Date(monthStart(-1))])).rows).toHaveLength(0);
    expect((await db.query('SELECT billing.add_ledger_month($1) AS made', [new Date(monthStart(-3))])).rows).toEqual([{ made: false }]);
  });
});
