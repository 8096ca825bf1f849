import { Database, Queryable } from '@gw/service-kit';
import { DroppedMonths, LEDGER_ARCHIVE_COLUMNS, LedgerCursor, LedgerMonthsStore, LedgerTextRow } from './ledger-months-store';
import { linkLedgerArchive } from './ledger-archive-link';
import { Int8, toSafeInt } from './pg-billing-rows';
import { PgMoneyLinks } from './pg-money-links';
import { PgStatements } from './pg-statements';

const utc = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const TEXT_COLUMNS = LEDGER_ARCHIVE_COLUMNS.map((c) =>
  c === 'request_at' || c === 'created_at' ? `${utc(c)} AS ${c}` : `${c}::text AS ${c}`,
).join(', ');

// The cursor is the text of request_at as written, which reads back to the same microsecond.
const READ_ROWS = `
  SELECT ${TEXT_COLUMNS} FROM billing.ledger
  WHERE request_at < $1 AND (request_at, request_id) > ($2::timestamptz, $3)
  ORDER BY request_at, request_id LIMIT $4`;

const MONTH_PARTITIONS = `
  SELECT c.relname AS name, to_char(to_date(substr(c.relname, 8), 'YYYY_MM'), 'YYYY-MM') AS month
  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
  WHERE i.inhparent = 'billing.ledger'::regclass AND c.relname ~ '^ledger_[0-9]{4}_[0-9]{2}$'
    AND to_date(substr(c.relname, 8), 'YYYY_MM') < ($1::timestamptz AT TIME ZONE 'UTC')::date
  ORDER BY c.relname`;

const PAGE_ROWS = 5_000;

async function readRows(q: Queryable, before: Date, cursor: LedgerCursor | undefined, limit: number): Promise<LedgerTextRow[]> {
  const after = cursor ?? { requestAt: '-infinity', requestId: '' };
  return (await q.query<LedgerTextRow>(READ_ROWS, [before, after.requestAt, after.requestId, limit])).rows;
}

async function* pages(q: Queryable, before: Date): AsyncIterable<LedgerTextRow[]> {
  let cursor: LedgerCursor | undefined;
  for (;;) {
    const rows = await readRows(q, before, cursor, PAGE_ROWS);
    if (rows.length) yield rows;
    if (rows.length < PAGE_ROWS) return;
    const last = rows[rows.length - 1];
    cursor = { requestAt: last.request_at, requestId: last.request_id };
  }
}

/** LedgerMonthsStore on Postgres (or PGlite): the partitions of billing.ledger. */
export class PgLedgerMonths implements LedgerMonthsStore {
  constructor(
    private readonly db: Database,
    private readonly links: PgMoneyLinks,
    private readonly statements: PgStatements,
  ) {}

  async ensureMonths(monthsAhead: number): Promise<number> {
    const { rows } = await this.db.query<{ made: number }>(
      'SELECT billing.ensure_ledger_months(now() + make_interval(months => $1)) AS made',
      [monthsAhead],
    );
    return rows[0].made;
  }

  readRows(before: Date, cursor: LedgerCursor | undefined, limit: number): Promise<LedgerTextRow[]> {
    return readRows(this.db, before, cursor, limit);
  }

  dropMonths(
    before: Date,
    sha256: string,
    matches: (pages: AsyncIterable<LedgerTextRow[]>) => Promise<boolean>,
  ): Promise<DroppedMonths | undefined> {
    return this.db.transaction(async (tx) => {
      const months = (await tx.query<{ name: string; month: string }>(MONTH_PARTITIONS, [before])).rows;
      // Writes to these months (and to ledger_other) wait until the drop commits; reads go on.
      for (const m of [...months.map((p) => p.name), 'ledger_other']) await tx.query(`LOCK TABLE billing.${m} IN EXCLUSIVE MODE`);
      if (!(await matches(pages(tx, before)))) return undefined;
      // The holders' statements of these months are kept before their charges go: they stay the same, byte for byte.
      await this.statements.keepBefore(tx, before);
      const totals = await tx.query<{ rows: Int8; amount: Int8 }>(
        'SELECT count(*) AS rows, coalesce(sum(amount_micro), 0) AS amount FROM billing.ledger WHERE request_at < $1',
        [before],
      );
      await linkLedgerArchive(tx, this.links, before, { months: months.map((m) => m.month), rows: toSafeInt(totals.rows[0].rows), sha256 });
      // The charges leave the ledger with their months; each account's balance still equals its entries.
      await tx.query(
        `INSERT INTO billing.archived_charges AS a (account_id, amount_micro)
         SELECT account_id, sum(amount_micro) FROM billing.ledger WHERE request_at < $1 AND paid GROUP BY account_id
         ON CONFLICT (account_id) DO UPDATE SET amount_micro = a.amount_micro + EXCLUDED.amount_micro`,
        [before],
      );
      // Every request id dropped stays findable: a later bill of it is not charged again.
      await tx.query(
        `INSERT INTO billing.archived_requests (request_id, request_at, account_id, paid, usage_estimated, amount_micro, shortfall_micro)
         SELECT request_id, request_at, account_id, paid, usage_estimated, amount_micro, shortfall_micro
         FROM billing.ledger WHERE request_at < $1
         ON CONFLICT (request_id) DO NOTHING`,
        [before],
      );
      for (const m of months) {
        await tx.query(
          `INSERT INTO billing.ledger_archives (month, rows, amount_micro, sha256)
           SELECT to_date($1, 'YYYY-MM'), count(*), coalesce(sum(amount_micro), 0), $2 FROM billing.${m.name}`,
          [m.month, sha256],
        );
        await tx.query(`DROP TABLE billing.${m.name}`);
      }
      // The rows of months that had no partition (ledger_other) leave with their months recorded
      // too, so that a bill of such a month is set aside rather than filed into a month archived.
      const others = await tx.query<{ month: string }>(
        `INSERT INTO billing.ledger_archives AS a (month, rows, amount_micro, sha256)
         SELECT date_trunc('month', request_at AT TIME ZONE 'UTC')::date, count(*), coalesce(sum(amount_micro), 0), $2
         FROM billing.ledger_other WHERE request_at < $1 GROUP BY 1
         ON CONFLICT (month) DO UPDATE SET rows = a.rows + EXCLUDED.rows, amount_micro = a.amount_micro + EXCLUDED.amount_micro,
           sha256 = EXCLUDED.sha256, archived_at = now()
         RETURNING to_char(month, 'YYYY-MM') AS month`,
        [before, sha256],
      );
      await tx.query('DELETE FROM billing.ledger_other WHERE request_at < $1', [before]);
      const dropped = [...new Set([...months.map((m) => m.month), ...others.rows.map((r) => r.month)])].sort();
      return { months: dropped, rows: toSafeInt(totals.rows[0].rows), amountMicro: toSafeInt(totals.rows[0].amount) };
    });
  }
}
