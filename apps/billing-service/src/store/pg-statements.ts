import { createHash } from 'node:crypto';
import { AuditKey, Database, linkMac, macMatches, Queryable } from '@gw/service-kit';
import { makeStatement } from './statement-books';
import { SendPart, StatementStore } from './statement-store';

const MONTH_DATE = `to_date($2, 'YYYY-MM')`;

/** What a kept statement's mac is of (keyed as the audit chain's links are): its account, month and the SHA-256 of its lines. */
const sealed = (accountId: string, month: string, sha256: string) => `statement|${accountId}|${month}|${sha256}`;

/**
 * StatementStore on Postgres (or PGlite): statements made from billing's books, and kept ones in
 * billing.kept_statements (migration 040), each sealed with AUDIT_KEY.
 */
export class PgStatements implements StatementStore {
  /**
   * `filingMs`: how long after its admitted time a bill may still be filed, and how far ahead of
   * the clock (BILL_LATE_WINDOW_MS + BILL_AHEAD_MS): the first charge of an account is found
   * among those filed within it of its first filed one.
   */
  constructor(
    private readonly db: Database,
    private readonly key: AuditKey,
    private readonly filingMs: number,
  ) {}

  async sendKept(accountId: string, month: string, send: SendPart): Promise<boolean> {
    const kept = await this.db.query<{ parts: number; sha256: string; mac: string }>(
      `SELECT parts, sha256, mac FROM billing.kept_statements WHERE account_id = $1 AND month = ${MONTH_DATE}`,
      [accountId, month],
    );
    if (kept.rows.length === 0) return false;
    const { parts, sha256, mac } = kept.rows[0];
    const hash = createHash('sha256');
    for (let part = 0; part < parts; part++) {
      const { rows } = await this.db.query<{ lines: string }>(
        `SELECT lines FROM billing.kept_statement_parts WHERE account_id = $1 AND month = ${MONTH_DATE} AND part = $3`,
        [accountId, month, part],
      );
      const lines = rows[0]?.lines ?? '';
      hash.update(lines);
      await send(lines);
    }
    const read = hash.digest('hex');
    // Checked before the signature is given: a statement changed in the database is never signed.
    if (read !== sha256 || !macMatches(this.key, sealed(accountId, month, read), mac))
      throw new Error(`the statement kept for ${accountId} of ${month} is not the one kept: its lines or its mac were changed`);
    return true;
  }

  keep(accountId: string, month: string): Promise<void> {
    return this.db.transaction((tx) => this.keepIn(tx, accountId, month));
  }

  /**
   * Keeps, in transaction `tx`, the statement of every account with a charge in the ledger's rows
   * admitted before `before` (a month start), month by month: call it before those rows are
   * dropped, in the same transaction.
   */
  async keepBefore(tx: Queryable, before: Date): Promise<void> {
    const { rows } = await tx.query<{ account_id: string; month: string }>(
      `SELECT DISTINCT to_char(request_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, account_id FROM billing.ledger
       WHERE request_at < $1 ORDER BY 1, 2`,
      [before],
    );
    for (const { account_id, month } of rows) await this.keepIn(tx, account_id, month);
  }

  private async keepIn(tx: Queryable, accountId: string, month: string): Promise<void> {
    // The row is taken first: a keeper at the same time waits for it here, then finds it kept.
    const taken = await tx.query(
      `INSERT INTO billing.kept_statements (account_id, month, opening_micro, closing_micro, movements, parts, sha256, mac)
       VALUES ($1, ${MONTH_DATE}, 0, 0, 0, 0, '', '') ON CONFLICT (account_id, month) DO NOTHING RETURNING month`,
      [accountId, month],
    );
    if (taken.rows.length === 0) return;
    const hash = createHash('sha256');
    let parts = 0;
    const made = await makeStatement(tx, accountId, month, 'final', async (lines) => {
      hash.update(lines);
      await tx.query(`INSERT INTO billing.kept_statement_parts (account_id, month, part, lines) VALUES ($1, ${MONTH_DATE}, $3, $4)`, [
        accountId,
        month,
        parts++,
        lines,
      ]);
    });
    const sha256 = hash.digest('hex');
    await tx.query(
      `UPDATE billing.kept_statements SET opening_micro = $3, closing_micro = $4, movements = $5, parts = $6, sha256 = $7, mac = $8
       WHERE account_id = $1 AND month = ${MONTH_DATE}`,
      [
        accountId,
        month,
        made.openingMicro,
        made.closingMicro,
        made.movements,
        parts,
        sha256,
        linkMac(this.key, sealed(accountId, month, sha256)),
      ],
    );
  }

  sendMade(accountId: string, month: string, status: 'final' | 'provisional', send: SendPart): Promise<void> {
    return this.db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await makeStatement(tx, accountId, month, status, send);
    });
  }

  /** The first month with a statement when months were archived before statements were kept (migration 040), else undefined. */
  async begin(): Promise<string | undefined> {
    const { rows } = await this.db.query<{ month: string }>(`SELECT to_char(month, 'YYYY-MM') AS month FROM billing.statements_begin`);
    return rows[0]?.month;
  }

  async firstMonth(accountId: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ month: string | null }>(
      `SELECT to_char(least(
         (SELECT min(e.created_at) FROM billing.balance_entries e WHERE e.account_id = $1),
         (SELECT min(l.request_at) FROM billing.ledger l WHERE l.account_id = $1
            AND l.created_at <= (SELECT min(f.created_at) FROM billing.ledger f WHERE f.account_id = $1) + make_interval(secs => $2 / 1000.0)),
         (SELECT min(k.month)::timestamp AT TIME ZONE 'UTC' FROM billing.kept_statements k WHERE k.account_id = $1)
       ) AT TIME ZONE 'UTC', 'YYYY-MM') AS month`,
      [accountId, this.filingMs],
    );
    return rows[0]?.month ?? undefined;
  }
}
