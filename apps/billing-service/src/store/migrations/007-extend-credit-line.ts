import { Migration } from '@gw/service-kit';

/**
 * ExtendCreditLine in one round trip: returns first, then lends what the balance has beyond
 * legacy holds and the line (all of it for p_need = 0, else at most p_need). An account
 * without a row answers zeros and gets none.
 */
export const migration: Migration = {
  id: '007-extend-credit-line',
  sql: `
      CREATE FUNCTION billing.extend_credit_line(p_account_id text, p_returned_total bigint, p_need bigint,
        OUT lent_now bigint, OUT granted_total bigint, OUT balance bigint, OUT charged_total bigint, OUT returned_total bigint,
        OUT held bigint)
      LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM billing.take_back_line(p_account_id, p_returned_total);
        SELECT greatest(0, b.balance_micro - b.held_micro - b.line_micro) INTO lent_now
          FROM billing.balances b WHERE b.account_id = p_account_id FOR UPDATE;
        IF NOT FOUND THEN
          SELECT 0, 0, 0, 0, 0, 0 INTO lent_now, granted_total, balance, charged_total, returned_total, held;
          RETURN;
        END IF;
        IF p_need > 0 THEN lent_now := least(lent_now, p_need); END IF;
        UPDATE billing.balances b SET line_micro = b.line_micro + lent_now, line_granted_total = b.line_granted_total + lent_now,
            updated_at = now()
          WHERE b.account_id = p_account_id
          RETURNING b.line_granted_total, b.balance_micro, b.line_charged_total, b.line_returned_total, b.held_micro
          INTO granted_total, balance, charged_total, returned_total, held;
      END $fn$;
    `,
};
