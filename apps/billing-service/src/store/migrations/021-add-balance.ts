import { Migration } from '@gw/service-kit';

/**
 * An operator's change in one round trip, with its entry. Under a key, the key's lock is taken
 * first and its entry looked up after it (a snapshot of its own: VOLATILE), so calls at once
 * with one key make one change and answer alike. A change refused writes nothing.
 */
export const migration: Migration = {
  id: '021-add-balance',
  sql: `
      CREATE FUNCTION billing.add_balance(p_account_id text, p_amount bigint, p_max bigint, p_reason text, p_made_by text,
        p_idempotency_key text, OUT outcome text, OUT balance bigint)
      LANGUAGE plpgsql VOLATILE AS $fn$
      DECLARE e billing.balance_entries;
      BEGIN
        IF p_idempotency_key IS NOT NULL THEN
          PERFORM pg_advisory_xact_lock(hashtextextended('balance-entry:' || p_idempotency_key, 0));
          SELECT * INTO e FROM billing.balance_entries x WHERE x.idempotency_key = p_idempotency_key;
          IF FOUND THEN
            outcome := CASE WHEN e.account_id = p_account_id AND e.amount_micro = p_amount THEN 'repeated' ELSE 'key-used' END;
            balance := e.balance_after;
            RETURN;
          END IF;
        END IF;
        IF p_amount >= 0 THEN
          INSERT INTO billing.balances AS b (account_id, balance_micro) VALUES (p_account_id, p_amount)
          ON CONFLICT (account_id) DO UPDATE SET balance_micro = b.balance_micro + EXCLUDED.balance_micro, updated_at = now()
            WHERE b.balance_micro + EXCLUDED.balance_micro <= p_max
          RETURNING b.balance_micro INTO balance;
        ELSE
          UPDATE billing.balances b SET balance_micro = b.balance_micro + p_amount, updated_at = now()
          WHERE b.account_id = p_account_id AND b.balance_micro + p_amount >= b.held_micro + b.line_micro AND b.balance_micro + p_amount <= p_max
          RETURNING b.balance_micro INTO balance;
        END IF;
        IF balance IS NULL THEN outcome := 'refused'; RETURN; END IF;
        INSERT INTO billing.balance_entries (account_id, amount_micro, kind, reason, made_by, idempotency_key, balance_after)
        VALUES (p_account_id, p_amount, CASE WHEN p_amount >= 0 THEN 'top-up' ELSE 'correction' END, p_reason, p_made_by, p_idempotency_key, balance);
        outcome := 'applied';
      END $fn$;
    `,
};
