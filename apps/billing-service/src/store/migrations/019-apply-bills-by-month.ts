import { Migration } from '@gw/service-kit';

/**
 * apply_bills of 008 on the months: each bill's request_at first (after the balances' locks,
 * so that a first bill's lock on an older id is taken in one order with the others), then the
 * rows it may correct looked up in the months its batch spans only. A bill of an archived
 * month is taken as applied before ('repeated').
 */
export const migration: Migration = {
  id: '019-apply-bills-by-month',
  sql: `
      CREATE OR REPLACE FUNCTION billing.apply_bills(p_request_id text[], p_account_id text[], p_model text[], p_paid boolean[],
        p_prompt bigint[], p_completion bigint[], p_estimated boolean[], p_held bigint[], p_input bigint[], p_output bigint[],
        p_charge bigint[], p_return_account_id text[], p_returned_total bigint[])
      RETURNS TABLE (bill_index int, bill_outcome text, bill_charged bigint, bill_shortfall bigint)
      LANGUAGE plpgsql AS $fn$
      DECLARE v_at timestamptz[];
      BEGIN
        PERFORM FROM billing.balances b WHERE b.account_id = ANY (p_account_id || p_return_account_id)
          ORDER BY b.account_id FOR UPDATE;
        v_at := ARRAY(SELECT billing.ledger_time(r.id) FROM unnest(p_request_id) WITH ORDINALITY AS r(id, n) ORDER BY r.n);
        RETURN QUERY
        WITH input AS (
          SELECT * FROM unnest(p_request_id, v_at, p_account_id, p_model, p_paid, p_prompt, p_completion, p_estimated, p_held, p_input,
              p_output, p_charge)
            WITH ORDINALITY AS i(request_id, request_at, account_id, model, paid, prompt, completion, estimated, held, in_price,
              out_price, charge, n)),
        earlier AS (
          SELECT l.request_id, l.account_id, l.paid, l.usage_estimated, l.amount_micro, l.shortfall_micro
          FROM billing.ledger l
          WHERE l.request_id = ANY (p_request_id) AND l.request_at = ANY (v_at)
            AND l.request_at BETWEEN (SELECT min(a) FROM unnest(v_at) a) AND (SELECT max(a) FROM unnest(v_at) a)
          FOR UPDATE),
        owing AS (
          SELECT i.*, e.request_id IS NULL AS fresh, coalesce(e.amount_micro, 0) AS amount_before,
            coalesce(e.shortfall_micro, 0) AS shortfall_before,
            i.charge - coalesce(e.amount_micro + e.shortfall_micro, 0) AS due
          FROM input i LEFT JOIN earlier e ON e.request_id = i.request_id
          WHERE NOT EXISTS (SELECT 1 FROM billing.ledger_archives a
              WHERE a.month = date_trunc('month', i.request_at AT TIME ZONE 'UTC')::date)
            AND (e.request_id IS NULL OR (e.usage_estimated AND NOT i.estimated AND e.account_id = i.account_id AND e.paid = i.paid))),
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
            output_micro_per_million, amount_micro, paid, usage_estimated, held_micro, shortfall_micro, request_at)
          SELECT t.request_id, t.account_id, t.model, t.prompt, t.completion, t.in_price, t.out_price, t.take, t.paid, t.estimated,
            t.held, t.owed - t.take, t.request_at
          FROM taken t WHERE t.fresh ORDER BY t.request_id
          ON CONFLICT (request_id, request_at) DO NOTHING
          RETURNING request_id),
        corrected AS (
          UPDATE billing.ledger l SET model = t.model, prompt_tokens = t.prompt, completion_tokens = t.completion,
            input_micro_per_million = t.in_price, output_micro_per_million = t.out_price, held_micro = t.held, usage_estimated = false,
            amount_micro = t.amount_before + t.take - t.refund, shortfall_micro = t.shortfall_before + t.owed - t.take - t.forgiven
          FROM taken t WHERE NOT t.fresh AND l.request_id = t.request_id AND l.request_at = t.request_at
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
};
