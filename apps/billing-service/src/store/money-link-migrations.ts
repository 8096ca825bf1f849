import { auditTrailKeyMigration, Migration } from '@gw/service-kit';

/**
 * Every balance movement is covered by a link of the audit chain (billing.audit_log). A link's
 * rows (billing.link_rows) say which movements it covers, one per movement: an operator's entry
 * (kind entry: its balance_entries id), a charge or its correction (kind charge: the billing id
 * and what the batch charged or gave back), an account's charges archived (kind archive). The
 * link itself keeps the rows' count and digest (LINK_DIGEST), and its mac (AUDIT_KEY) makes it
 * one the service wrote: rows changed, added or deleted afterwards no longer give the digest.
 */
export const MONEY_LINK_MIGRATIONS: Migration[] = [
  auditTrailKeyMigration('034-audit-trail-keyed', 'billing'),
  {
    id: '035-link-rows',
    sql: `
      DO $migration$ BEGIN
        CREATE TABLE billing.link_rows (
          link_seq bigint NOT NULL,
          n int NOT NULL,
          kind text NOT NULL CHECK (kind IN ('entry', 'charge', 'archive')),
          account_id text NOT NULL,
          request_id text,
          entry_id bigint,
          amount_micro bigint NOT NULL,
          PRIMARY KEY (link_seq, n)
        );
        CREATE INDEX link_rows_request ON billing.link_rows (request_id) WHERE request_id IS NOT NULL;
        CREATE INDEX link_rows_entry ON billing.link_rows (entry_id) WHERE entry_id IS NOT NULL;
      END $migration$;
    `,
  },
];

/** One row of a link as its digest reads it (an aggregate over rows `r`, in their order). */
const ROW_TEXT = `r.kind || '|' || r.account_id || '|' || coalesce(r.request_id, '') || '|' || coalesce(r.entry_id::text, '') || '|' || r.amount_micro`;

/** The digest of a link's rows `r` (an aggregate): sha256 of their lines in order, lower-case hex; of no rows, sha256 of nothing. */
export const LINK_DIGEST = `encode(sha256(convert_to(coalesce(string_agg(${ROW_TEXT}, E'\\n' ORDER BY r.n), ''), 'UTF8')), 'hex')`;
