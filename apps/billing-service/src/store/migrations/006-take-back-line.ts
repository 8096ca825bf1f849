import { Migration } from '@gw/service-kit';

/**
 * Applies quota-service's cumulative total of returned line: only the part beyond what was
 * applied before, so a repeated or late message changes nothing (max-merge).
 */
export const migration: Migration = {
  id: '006-take-back-line',
  sql: `
      CREATE FUNCTION billing.take_back_line(p_account_id text, p_returned_total bigint) RETURNS void
      LANGUAGE sql AS $fn$
        UPDATE billing.balances b SET
          line_micro = greatest(0, b.line_micro - (p_returned_total - b.line_returned_total)),
          line_granted_total = b.line_granted_total + greatest(0, p_returned_total - b.line_returned_total - b.line_micro),
          line_returned_total = p_returned_total,
          updated_at = now()
        WHERE b.account_id = p_account_id AND p_returned_total > b.line_returned_total;
      $fn$;
    `,
};
