import { Migration } from '@gw/service-kit';

/**
 * The common case of Authorize in one round trip: a new request id whose hold the balance
 * covers, or does not. The caller priced the hold from its copy of the price: when that is
 * no longer the model's price, 'price-changed' and nothing done. The id already held or
 * settled answers 'known' and changes nothing, for the caller's full transaction to sort out.
 */
export const migration: Migration = {
  id: '002-place-hold-function',
  sql: `
      CREATE FUNCTION billing.place_hold(p_request_id text, p_account_id text, p_model text, p_amount bigint,
        p_input bigint, p_output bigint, OUT outcome text, OUT balance bigint, OUT held_by_others bigint)
      LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM FROM billing.prices pr
          WHERE pr.model = p_model AND pr.input_micro_per_million = p_input AND pr.output_micro_per_million = p_output;
        IF NOT FOUND THEN outcome := 'price-changed'; RETURN; END IF;
        INSERT INTO billing.holds (request_id, account_id, model, amount_micro, input_micro_per_million, output_micro_per_million)
        VALUES (p_request_id, p_account_id, p_model, p_amount, p_input, p_output) ON CONFLICT (request_id) DO NOTHING;
        IF NOT FOUND THEN outcome := 'known'; RETURN; END IF;
        -- Checked after the insert, which waited for any settle of this id that was committing.
        IF EXISTS (SELECT 1 FROM billing.ledger l WHERE l.request_id = p_request_id) THEN
          DELETE FROM billing.holds h WHERE h.request_id = p_request_id;
          outcome := 'known'; RETURN;
        END IF;
        IF p_amount = 0 THEN
          INSERT INTO billing.balances (account_id) VALUES (p_account_id) ON CONFLICT (account_id) DO NOTHING;
        END IF;
        UPDATE billing.balances b SET held_micro = b.held_micro + p_amount, updated_at = now()
          WHERE b.account_id = p_account_id AND b.balance_micro - b.held_micro >= p_amount
          RETURNING b.balance_micro, b.held_micro - p_amount INTO balance, held_by_others;
        IF FOUND THEN outcome := 'held'; RETURN; END IF;
        DELETE FROM billing.holds h WHERE h.request_id = p_request_id;
        SELECT b.balance_micro, b.held_micro INTO balance, held_by_others FROM billing.balances b WHERE b.account_id = p_account_id;
        outcome := 'refused';
        balance := coalesce(balance, 0);
        held_by_others := coalesce(held_by_others, 0);
      END $fn$;
    `,
};
