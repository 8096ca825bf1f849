import { Migration } from '@gw/service-kit';

/**
 * The accounts whose balance is not what their entries come to (the audit's first check).
 */
export const migration: Migration = {
  id: '022-balance-mismatches',
  sql: `
      CREATE FUNCTION billing.balance_mismatches() RETURNS TABLE (account_id text, balance bigint, entries bigint)
      LANGUAGE sql STABLE AS $fn$
        WITH movements AS (
          SELECT e.account_id, e.amount_micro AS amount FROM billing.balance_entries e
          UNION ALL SELECT l.account_id, -l.amount_micro FROM billing.ledger l WHERE l.paid
          UNION ALL SELECT a.account_id, -a.amount_micro FROM billing.archived_charges a),
        totals AS (SELECT m.account_id, sum(m.amount)::bigint AS entries FROM movements m GROUP BY m.account_id)
        SELECT coalesce(b.account_id, t.account_id), coalesce(b.balance_micro, 0), coalesce(t.entries, 0)
        FROM billing.balances b FULL JOIN totals t ON t.account_id = b.account_id
        WHERE coalesce(b.balance_micro, 0) <> coalesce(t.entries, 0);
      $fn$;
    `,
};
