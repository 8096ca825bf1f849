import { Database } from '@gw/service-kit';
import { MoneyAuditStore, MoneyViolation } from './money-audit-store';
import { Int8, toSafeInt } from './pg-billing-rows';

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
