import { Migration } from '@gw/service-kit';

/**
 * Admission in one call: each account's credit line lent to quota-service, and the
 * bills quota-service delivers in batches.
 *
 * The line is money of the balance lent to quota-service, which holds running paid requests in
 * it. `held + line <= balance` is a constraint, so whatever quota-service's store forgets, no
 * balance goes below zero. The totals only grow, and `line = granted - charged - returned`
 * always: quota-service keeps the same three totals and repairs lost or repeated messages by
 * taking the larger value. When more leaves the line than it has (a charge or a return beyond it,
 * only after quota-service's store lost writes), the part beyond it counts as lent at that moment
 * (granted grows by it), so that the identity holds and quota-service's own totals stay comparable.
 *
 * Each function is its own migration: PGlite refuses several commands in one string.
 */
export const CREDIT_LINE_MIGRATIONS: Migration[] = [
  {
    // Existing rows get a line of 0, which both constraints accept (held <= balance held before).
    id: '005-credit-lines',
    sql: `
      DO $migration$ BEGIN
        ALTER TABLE billing.balances
          ADD COLUMN line_micro bigint NOT NULL DEFAULT 0,
          ADD COLUMN line_granted_total bigint NOT NULL DEFAULT 0,
          ADD COLUMN line_charged_total bigint NOT NULL DEFAULT 0,
          ADD COLUMN line_returned_total bigint NOT NULL DEFAULT 0;
        ALTER TABLE billing.balances ADD CONSTRAINT line_within_balance
          CHECK (line_micro >= 0 AND held_micro + line_micro <= balance_micro) NOT VALID;
        ALTER TABLE billing.balances VALIDATE CONSTRAINT line_within_balance;
        ALTER TABLE billing.balances ADD CONSTRAINT line_is_its_totals
          CHECK (line_micro = line_granted_total - line_charged_total - line_returned_total) NOT VALID;
        ALTER TABLE billing.balances VALIDATE CONSTRAINT line_is_its_totals;
        ALTER TABLE billing.ledger
          ADD COLUMN held_micro bigint NOT NULL DEFAULT 0,
          ADD COLUMN shortfall_micro bigint NOT NULL DEFAULT 0 CHECK (shortfall_micro >= 0);
      END $migration$;
    `,
  },
  {
    // Applies quota-service's cumulative total of returned line: only the part beyond what was
    // applied before, so a repeated or late message changes nothing (max-merge).
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
  },
  {
    // ExtendCreditLine in one round trip: returns first, then lends what the balance has beyond
    // legacy holds and the line (all of it for p_need = 0, else at most p_need). An account
    // without a row answers zeros and gets none.
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
  },
  {
    // ApplyBills in one round trip and one transaction; the bills come checked and with distinct
    // request ids (free ones with hold, prices and charge 0). The accounts are locked first, in
    // one order, so that concurrent batches queue instead of deadlocking, and each sees the
    // other's rows. A bill is written once per request id; one whose row is an estimate and that
    // is not is a correction of that row. Each bill owes its charge less what its row was billed
    // before (negative for an estimate corrected down: given back, first from the row's
    // shortfall). What an account can pay is its balance less legacy holds (the line and the
    // unlent rest), and the bills of the batch take from it in order: what one cannot take is its
    // shortfall, recorded in its row. The line goes down by what is owed (at most to 0), the
    // balance by what is taken. Returns come after the bills.
    id: '008-apply-bills',
    sql: `
      CREATE FUNCTION billing.apply_bills(p_request_id text[], p_account_id text[], p_model text[], p_paid boolean[],
        p_prompt bigint[], p_completion bigint[], p_estimated boolean[], p_held bigint[], p_input bigint[], p_output bigint[],
        p_charge bigint[], p_return_account_id text[], p_returned_total bigint[])
      RETURNS TABLE (bill_index int, bill_outcome text, bill_charged bigint, bill_shortfall bigint)
      LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM FROM billing.balances b WHERE b.account_id = ANY (p_account_id || p_return_account_id)
          ORDER BY b.account_id FOR UPDATE;
        RETURN QUERY
        WITH input AS (
          SELECT * FROM unnest(p_request_id, p_account_id, p_model, p_paid, p_prompt, p_completion, p_estimated, p_held, p_input,
              p_output, p_charge)
            WITH ORDINALITY AS i(request_id, account_id, model, paid, prompt, completion, estimated, held, in_price, out_price, charge, n)),
        earlier AS (
          SELECT l.request_id, l.account_id, l.paid, l.usage_estimated, l.amount_micro, l.shortfall_micro
          FROM billing.ledger l WHERE l.request_id = ANY (p_request_id) FOR UPDATE),
        owing AS (
          SELECT i.*, e.request_id IS NULL AS fresh, coalesce(e.amount_micro, 0) AS amount_before,
            coalesce(e.shortfall_micro, 0) AS shortfall_before,
            i.charge - coalesce(e.amount_micro + e.shortfall_micro, 0) AS due
          FROM input i LEFT JOIN earlier e ON e.request_id = i.request_id
          WHERE e.request_id IS NULL OR (e.usage_estimated AND NOT i.estimated AND e.account_id = i.account_id AND e.paid = i.paid)),
        parts AS (
          SELECT o.*, greatest(o.due, 0) AS owed, least(o.shortfall_before, greatest(-o.due, 0)) AS forgiven,
            greatest(-o.due, 0) - least(o.shortfall_before, greatest(-o.due, 0)) AS refund
          FROM owing o),
        payable AS (
          SELECT p.account_id, coalesce(max(b.balance_micro - b.held_micro), 0) + sum(p.refund) AS room
          FROM parts p LEFT JOIN billing.balances b ON b.account_id = p.account_id GROUP BY p.account_id),
        taken AS (
          SELECT p.*, least(p.owed, greatest(0, r.room - (sum(p.owed) OVER (PARTITION BY p.account_id ORDER BY p.n) - p.owed)))::bigint AS take
          FROM parts p JOIN payable r ON r.account_id = p.account_id),
        written AS (
          INSERT INTO billing.ledger (request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million,
            output_micro_per_million, amount_micro, paid, usage_estimated, held_micro, shortfall_micro)
          SELECT t.request_id, t.account_id, t.model, t.prompt, t.completion, t.in_price, t.out_price, t.take, t.paid, t.estimated,
            t.held, t.owed - t.take
          FROM taken t WHERE t.fresh ORDER BY t.request_id
          ON CONFLICT (request_id) DO NOTHING
          RETURNING request_id),
        corrected AS (
          UPDATE billing.ledger l SET model = t.model, prompt_tokens = t.prompt, completion_tokens = t.completion,
            input_micro_per_million = t.in_price, output_micro_per_million = t.out_price, held_micro = t.held, usage_estimated = false,
            amount_micro = t.amount_before + t.take - t.refund, shortfall_micro = t.shortfall_before + t.owed - t.take - t.forgiven
          FROM taken t WHERE NOT t.fresh AND l.request_id = t.request_id
          RETURNING l.request_id),
        done AS (
          SELECT t.* FROM taken t WHERE t.request_id IN (SELECT request_id FROM written UNION ALL SELECT request_id FROM corrected)),
        moved AS (
          UPDATE billing.balances b SET balance_micro = b.balance_micro - s.take + s.refund,
            line_micro = greatest(0, b.line_micro - s.owed),
            line_charged_total = b.line_charged_total + s.owed,
            line_granted_total = b.line_granted_total + greatest(0, s.owed - b.line_micro),
            updated_at = now()
          FROM (SELECT account_id, sum(take) AS take, sum(refund) AS refund, sum(owed) AS owed FROM done GROUP BY account_id) s
          WHERE b.account_id = s.account_id AND (s.owed > 0 OR s.refund > 0))
        SELECT i.n::int,
          CASE WHEN d.n IS NULL THEN 'repeated' WHEN d.fresh THEN 'written' ELSE 'corrected' END,
          coalesce(d.take - d.refund, 0)::bigint,
          coalesce(d.shortfall_before + d.owed - d.take - d.forgiven, 0)::bigint
        FROM input i LEFT JOIN done d ON d.n = i.n ORDER BY i.n;
        PERFORM billing.take_back_line(r.account_id, max(r.returned_total))
          FROM unnest(p_return_account_id, p_returned_total) AS r(account_id, returned_total) GROUP BY r.account_id;
      END $fn$;
    `,
  },
  {
    // A legacy hold (Authorize) must fit beside the line too; what the account's other requests
    // hold, for Authorize's required figure, now includes the line (quota-service holds running
    // requests in it).
    id: '009-place-hold-beside-line',
    sql: `
      CREATE OR REPLACE FUNCTION billing.place_hold(p_request_id text, p_account_id text, p_model text, p_amount bigint,
        p_input bigint, p_output bigint, OUT outcome text, OUT balance bigint, OUT held_by_others bigint)
      LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM FROM billing.prices pr
          WHERE pr.model = p_model AND pr.input_micro_per_million = p_input AND pr.output_micro_per_million = p_output;
        IF NOT FOUND THEN outcome := 'price-changed'; RETURN; END IF;
        INSERT INTO billing.holds (request_id, account_id, model, amount_micro, input_micro_per_million, output_micro_per_million)
        VALUES (p_request_id, p_account_id, p_model, p_amount, p_input, p_output) ON CONFLICT (request_id) DO NOTHING;
        IF NOT FOUND THEN outcome := 'known'; RETURN; END IF;
        IF EXISTS (SELECT 1 FROM billing.ledger l WHERE l.request_id = p_request_id) THEN
          DELETE FROM billing.holds h WHERE h.request_id = p_request_id;
          outcome := 'known'; RETURN;
        END IF;
        IF p_amount = 0 THEN
          INSERT INTO billing.balances (account_id) VALUES (p_account_id) ON CONFLICT (account_id) DO NOTHING;
        END IF;
        UPDATE billing.balances b SET held_micro = b.held_micro + p_amount, updated_at = now()
          WHERE b.account_id = p_account_id AND b.balance_micro - b.held_micro - b.line_micro >= p_amount
          RETURNING b.balance_micro, b.held_micro - p_amount + b.line_micro INTO balance, held_by_others;
        IF FOUND THEN outcome := 'held'; RETURN; END IF;
        DELETE FROM billing.holds h WHERE h.request_id = p_request_id;
        SELECT b.balance_micro, b.held_micro + b.line_micro INTO balance, held_by_others FROM billing.balances b
          WHERE b.account_id = p_account_id;
        outcome := 'refused';
        balance := coalesce(balance, 0);
        held_by_others := coalesce(held_by_others, 0);
      END $fn$;
    `,
  },
  {
    // ExtendCreditLines: several extensions in one round trip and one transaction. The accounts are
    // locked first, in one order, as apply_bills locks them, so that calls at once over the same
    // accounts queue instead of deadlocking; then each line is served by extend_credit_line, in the
    // order given (a loop: an account given twice is served twice, the second after the first).
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
  },
];
