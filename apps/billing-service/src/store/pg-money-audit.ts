import { Database } from '@gw/service-kit';
import { MoneyAuditStore, MoneyViolation } from './money-audit-store';
import { LINK_DIGEST } from './link-digest';
import { Int8, toSafeInt } from './pg-billing-rows';

// Each movement against the links of the audit chain (money-link-migrations): every operator's
// entry and every paid charge has link rows of its amount, no account's links charge more than its
// ledger and archives hold (a charge deleted), the archives are what their links moved, and every
// link's rows still give its digest. That the links are the service's own (their macs) is
// VerifyAuditTrail's part.
const LINK_VIOLATIONS = `
  SELECT 'entry-without-link' AS kind, e.account_id, '' AS request_id,
    format('balance entry %s (%s of %s micro-LYD) has no link in the audit chain', e.id, e.kind, e.amount_micro) AS detail
  FROM billing.balance_entries e
  WHERE NOT EXISTS (SELECT 1 FROM billing.link_rows r
    WHERE r.kind = 'entry' AND r.entry_id = e.id AND r.account_id = e.account_id AND r.amount_micro = e.amount_micro)
  UNION ALL
  SELECT 'link-without-entry', r.account_id, '', format('link %s covers balance entry %s of %s micro-LYD, which is gone or changed',
    r.link_seq, r.entry_id, r.amount_micro)
  FROM billing.link_rows r
  WHERE r.kind = 'entry' AND NOT EXISTS (SELECT 1 FROM billing.balance_entries e
    WHERE e.id = r.entry_id AND e.account_id = r.account_id AND e.amount_micro = r.amount_micro)
  UNION ALL
  SELECT 'entry-without-link', l.account_id, l.request_id,
    format('charged %s micro-LYD, its links %s', l.amount_micro, coalesce(c.linked::text, 'none'))
  FROM billing.ledger l
  LEFT JOIN (SELECT r.request_id, sum(r.amount_micro) AS linked FROM billing.link_rows r WHERE r.kind = 'charge' GROUP BY r.request_id) c
    ON c.request_id = l.request_id
  WHERE l.paid AND l.amount_micro <> coalesce(c.linked, 0)
  UNION ALL
  SELECT 'link-without-entry', t.account_id, '',
    format('its links charge %s micro-LYD, its ledger and archives hold %s: a charge was deleted or lowered', t.linked, t.kept)
  FROM (
    SELECT coalesce(c.account_id, k.account_id) AS account_id, coalesce(c.linked, 0) AS linked, coalesce(k.kept, 0) AS kept
    FROM (SELECT r.account_id, sum(r.amount_micro) AS linked FROM billing.link_rows r WHERE r.kind = 'charge' GROUP BY r.account_id) c
    FULL JOIN (
      SELECT x.account_id, sum(x.amount) AS kept FROM (
        SELECT l.account_id, l.amount_micro AS amount FROM billing.ledger l WHERE l.paid
        UNION ALL SELECT a.account_id, a.amount_micro FROM billing.archived_charges a) x
      GROUP BY x.account_id) k ON k.account_id = c.account_id) t
  WHERE t.linked > t.kept
  UNION ALL
  SELECT 'entry-without-link', coalesce(a.account_id, s.account_id), '',
    format('archived charges %s micro-LYD, its archive links %s', coalesce(a.amount_micro, 0), coalesce(s.linked, 0))
  FROM billing.archived_charges a
  FULL JOIN (SELECT r.account_id, sum(r.amount_micro) AS linked FROM billing.link_rows r WHERE r.kind = 'archive' GROUP BY r.account_id) s
    ON s.account_id = a.account_id
  WHERE coalesce(a.amount_micro, 0) <> coalesce(s.linked, 0)
  UNION ALL
  SELECT 'link-not-rows', coalesce(a.account_id, ''), '',
    format('link %s (%s) says %s rows of digest %s; its rows are %s of digest %s', a.seq, a.action, a.details->>'rows',
      a.details->>'digest', coalesce(d.n, 0), coalesce(d.digest, encode(sha256(''::bytea), 'hex')))
  FROM billing.audit_log a
  LEFT JOIN (SELECT r.link_seq, count(*) AS n, ${LINK_DIGEST} AS digest FROM billing.link_rows r GROUP BY r.link_seq) d ON d.link_seq = a.seq
  WHERE a.details->>'digest' IS NOT NULL
    AND (coalesce(d.digest, encode(sha256(''::bytea), 'hex')) <> a.details->>'digest' OR coalesce(d.n, 0)::text <> a.details->>'rows')
  UNION ALL
  SELECT 'link-not-rows', min(r.account_id), '', format('%s rows name link %s, which is not a link of the chain', count(*), r.link_seq)
  FROM billing.link_rows r
  WHERE NOT EXISTS (SELECT 1 FROM billing.audit_log a WHERE a.seq = r.link_seq AND a.details->>'digest' IS NOT NULL)
  GROUP BY r.link_seq`;

// The checks read one snapshot, so that a charge landing meanwhile is in both or in neither.
const VIOLATIONS = `
  SELECT 'balance-not-entries' AS kind, m.account_id, '' AS request_id,
    format('balance %s micro-LYD, entries less charges %s', m.balance, m.entries) AS detail
  FROM billing.balance_mismatches() m
  UNION ALL
  SELECT 'billed-twice', min(l.account_id), l.request_id, format('%s ledger rows', count(*))
  FROM billing.ledger l GROUP BY l.request_id HAVING count(*) > 1
  UNION ALL
  SELECT 'correction-not-charge', k.account_id, k.request_id,
    format('corrected to %s micro-LYD, charged %s', k.amount_after, coalesce(l.amount_micro::text, 'no row'))
  FROM billing.charge_corrections k
  LEFT JOIN billing.ledger l ON l.request_id = k.request_id AND l.request_at = k.request_at
  WHERE l.amount_micro IS DISTINCT FROM k.amount_after
    AND NOT EXISTS (SELECT 1 FROM billing.ledger_archives a WHERE a.month = date_trunc('month', k.request_at AT TIME ZONE 'UTC')::date)
  UNION ALL
  ${LINK_VIOLATIONS}
  ORDER BY 1, 2, 3 LIMIT $1`;

/** MoneyAuditStore on Postgres (or PGlite). */
export class PgMoneyAudit implements MoneyAuditStore {
  constructor(private readonly db: Database) {}

  audit(limit: number): Promise<{ violations: MoneyViolation[]; accountsChecked: number }> {
    return this.db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const found = await tx.query<{ kind: MoneyViolation['kind']; account_id: string; request_id: string; detail: string }>(VIOLATIONS, [
        limit,
      ]);
      const accounts = await tx.query<{ n: Int8 }>('SELECT count(*) AS n FROM billing.balances');
      return {
        violations: found.rows.map((r) => ({ kind: r.kind, accountId: r.account_id, requestId: r.request_id, detail: r.detail })),
        accountsChecked: toSafeInt(accounts.rows[0].n),
      };
    });
  }
}
