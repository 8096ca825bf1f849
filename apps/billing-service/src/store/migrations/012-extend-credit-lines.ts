import { Migration } from '@gw/service-kit';

/**
 * ExtendCreditLines: several extensions in one round trip and one transaction. The accounts are
 * locked first, in one order, as apply_bills locks them, so that calls at once over the same
 * accounts queue instead of deadlocking; then each line is served by extend_credit_line, in the
 * order given (a loop: an account given twice is served twice, the second after the first).
 */
export const migration: Migration = {
  id: '012-extend-credit-lines',
  sql: `
      CREATE FUNCTION billing.extend_credit_lines(p_account_id text[], p_returned_total bigint[], p_need bigint[])
      RETURNS TABLE (line_index int, lent_now bigint, granted_total bigint, balance bigint, charged_total bigint,
        returned_total bigint, held bigint)
      LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM FROM billing.balances b WHERE b.account_id = ANY (p_account_id) ORDER BY b.account_id FOR UPDATE;
        FOR i IN 1 .. coalesce(array_length(p_account_id, 1), 0) LOOP
          line_index := i;
          SELECT e.lent_now, e.granted_total, e.balance, e.charged_total, e.returned_total, e.held
            INTO lent_now, granted_total, balance, charged_total, returned_total, held
            FROM billing.extend_credit_line(p_account_id[i], p_returned_total[i], p_need[i]) e;
          RETURN NEXT;
        END LOOP;
      END $fn$;
    `,
};
