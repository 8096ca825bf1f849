import { AuditDraft, AuditEntry, AuditValue, Database, PgAuditTrail, Queryable } from '@gw/service-kit';
import { Int8, toSafeInt } from './pg-billing-rows';
import { LINK_DIGEST } from './link-digest';

/** One movement a link covers (a row of billing.link_rows). */
export interface LinkRow {
  kind: 'entry' | 'charge' | 'archive';
  accountId: string;
  /** A charge's billing id. */
  requestId?: string;
  /** An operator's entry's id (billing.balance_entries). */
  entryId?: number;
  /** What moved: an entry's amount, what a batch charged (negative: gave back), the charges archived. */
  amountMicro: number;
}

/** A link to append: its draft's details get `rows` and `digest`. */
export interface MoneyLinkDraft extends Omit<AuditDraft, 'details'> {
  details: Record<string, AuditValue>;
}

// The rows in one statement, the digest of what was written read back in the same one; `source`
// gives (kind, account_id, request_id, entry_id, amount_micro, n), $1 is the link's seq.
const writeRows = (source: string) => `
  WITH written AS (
    INSERT INTO billing.link_rows (link_seq, n, kind, account_id, request_id, entry_id, amount_micro)
    SELECT $1, i.n, i.kind, i.account_id, i.request_id, i.entry_id, i.amount_micro FROM (${source}) i
    RETURNING *)
  SELECT ${LINK_DIGEST} AS digest FROM written r`;

const WRITE_GIVEN_ROWS = writeRows(
  `SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[]) WITH ORDINALITY
     AS u(kind, account_id, request_id, entry_id, amount_micro, n)`,
);

// Every movement kept before links were kept: the operators' entries, the paid charges, the charges archived.
const WRITE_EARLIER_ROWS = writeRows(`
  SELECT m.*, row_number() OVER (ORDER BY m.kind, m.account_id, m.request_id, m.entry_id)::int AS n FROM (
    SELECT 'entry' AS kind, e.account_id, NULL::text AS request_id, e.id AS entry_id, e.amount_micro FROM billing.balance_entries e
    UNION ALL
    SELECT 'charge', l.account_id, l.request_id, NULL, l.amount_micro FROM billing.ledger l WHERE l.paid AND l.amount_micro <> 0
    UNION ALL
    SELECT 'archive', a.account_id, NULL, NULL, a.amount_micro FROM billing.archived_charges a WHERE a.amount_micro <> 0) m`);

/**
 * The links that cover billing's balance movements: each appended to the audit chain in the
 * transaction that makes the movements, with its rows. Call it last in that transaction (it takes
 * the chain's head, which every link waits for).
 */
export class PgMoneyLinks {
  constructor(readonly trail: PgAuditTrail) {}

  /** Appends a link covering `rows` in `tx`; its details gain `rows` (their count) and `digest`. */
  append(tx: Queryable, draft: MoneyLinkDraft, rows: LinkRow[]): Promise<AuditEntry> {
    return this.trail.appendAt(tx, async (seq) => {
      const { rows: digestRows } = await tx.query<{ digest: string }>(WRITE_GIVEN_ROWS, [
        seq,
        rows.map((r) => r.kind),
        rows.map((r) => r.accountId),
        rows.map((r) => r.requestId ?? null),
        rows.map((r) => r.entryId ?? null),
        rows.map((r) => r.amountMicro),
      ]);
      return { ...draft, details: { ...draft.details, rows: rows.length, digest: digestRows[0].digest } };
    });
  }

  /**
   * Links every movement kept before links were (`books-linked`), once: on the first start with
   * links, before the service serves, so that from then on every movement has a link. Appends
   * nothing once the chain has a keyed link (every movement since is linked), or when there is
   * nothing to link (a new database).
   */
  async linkEarlierBooks(db: Database): Promise<AuditEntry | undefined> {
    return db.transaction(async (tx) => {
      // The head first: a replica starting at the same time waits here, then finds the link made.
      await tx.query('SELECT seq FROM billing.audit_head FOR UPDATE');
      const { rows } = await tx.query<{ linked: boolean; earlier: boolean }>(
        // Any keyed link: movements were linked from then on (books-linked, or nothing to link when keying began).
        `SELECT EXISTS (SELECT 1 FROM billing.audit_log WHERE mac IS NOT NULL) AS linked,
           EXISTS (SELECT 1 FROM billing.balance_entries) OR EXISTS (SELECT 1 FROM billing.ledger WHERE paid AND amount_micro <> 0)
             OR EXISTS (SELECT 1 FROM billing.archived_charges) AS earlier`,
      );
      if (rows[0].linked || !rows[0].earlier) return undefined;
      return this.trail.appendAt(tx, async (seq) => {
        const written = await tx.query<{ digest: string }>(WRITE_EARLIER_ROWS, [seq]);
        const count = await tx.query<{ n: Int8 }>('SELECT count(*) AS n FROM billing.link_rows WHERE link_seq = $1', [seq]);
        return {
          accountId: null,
          action: 'books-linked',
          details: { rows: toSafeInt(count.rows[0].n), digest: written.rows[0].digest },
          actor: 'billing-service',
          reason: 'the movements kept before links were',
        };
      });
    });
  }
}
