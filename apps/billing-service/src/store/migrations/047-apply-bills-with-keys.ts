import { Migration } from '@gw/service-kit';

/**
 * apply_bills of 033 with each bill's API key (p_key_id, NULL: none), last and defaulted so that a
 * replica older than this still calls it with 16 arguments: the ledger row and the set-aside bill
 * keep it, and a correction keeps the key its estimate had (or takes the real bill's when the
 * estimate had none). Nothing else changes.
 */
export const migration: Migration = {
  id: '047-apply-bills-with-keys',
  sql: `
      CREATE FUNCTION billing.apply_bills(p_request_id text[], p_account_id text[], p_model text[], p_paid boolean[],
        p_prompt bigint[], p_completion bigint[], p_estimated boolean[], p_held bigint[], p_input bigint[], p_output bigint[],
        p_charge bigint[], p_return_account_id text[], p_returned_total bigint[], p_end_reason text[] DEFAULT NULL,
        p_request_at timestamptz[] DEFAULT NULL, p_set_aside text[] DEFAULT NULL, p_key_id text[] DEFAULT NULL)
      RETURNS TABLE (bill_index int, bill_outcome text, bill_charged bigint, bill_shortfall bigint, bill_set_aside text)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v_at timestamptz[];
        v_class text[];
      BEGIN
        PERFORM FROM billing.balances b WHERE b.account_id = ANY (p_account_id || p_return_account_id)
          ORDER BY b.account_id FOR UPDATE;
        v_at := ARRAY(
          SELECT coalesce(
            (SELECT l.request_at FROM billing.ledger l WHERE l.request_id = r.id
               AND l.request_at = ANY (ARRAY[coalesce(p_request_at[r.n], billing.ledger_time(r.id)), billing.ledger_time(r.id),
                 (SELECT s.filed_at FROM billing.set_aside_bills s WHERE s.request_id = r.id)])
             LIMIT 1),
            p_request_at[r.n], billing.ledger_time(r.id))
          FROM unnest(p_request_id) WITH ORDINALITY AS r(id, n) ORDER BY r.n);
        v_class := ARRAY(
          SELECT CASE
            WHEN a.request_id IS NOT NULL THEN
              CASE WHEN a.usage_estimated AND NOT r.estimated AND a.account_id = r.account_id AND a.paid = r.paid
                THEN 'archived-estimate' ELSE 'repeated' END
            WHEN EXISTS (SELECT 1 FROM billing.ledger l WHERE l.request_id = r.id AND l.request_at = v_at[r.n]) THEN
              -- A bill set aside for its prices is set aside even when it would correct its request's
              -- estimate in the ledger: its prices must not decide the correction.
              CASE WHEN p_set_aside[r.n] = 'price-mismatch' AND EXISTS (SELECT 1 FROM billing.ledger l
                  WHERE l.request_id = r.id AND l.request_at = v_at[r.n] AND l.usage_estimated AND NOT r.estimated
                    AND l.account_id = r.account_id AND l.paid = r.paid)
                THEN 'price-mismatch' ELSE 'bill' END
            WHEN s.request_id IS NOT NULL AND s.decision IS DISTINCT FROM 'filed' THEN 'set-aside'
            WHEN p_set_aside[r.n] IS NOT NULL THEN p_set_aside[r.n]
            WHEN EXISTS (SELECT 1 FROM billing.ledger_archives m
                WHERE m.month = date_trunc('month', v_at[r.n] AT TIME ZONE 'UTC')::date) THEN 'month-archived'
            ELSE 'bill' END
          FROM unnest(p_request_id, p_account_id, p_paid, p_estimated) WITH ORDINALITY AS r(id, account_id, paid, estimated, n)
            LEFT JOIN billing.archived_requests a ON a.request_id = r.id
            LEFT JOIN billing.set_aside_bills s ON s.request_id = r.id
          ORDER BY r.n);
        -- Set aside once per request id; a later delivery is counted, and its reported usage replaces an estimate kept.
        INSERT INTO billing.set_aside_bills AS s (request_id, account_id, reason, admitted_at, model, paid, prompt_tokens,
          completion_tokens, usage_estimated, held_micro, input_micro_per_million, output_micro_per_million, charge_micro, end_reason, key_id)
        SELECT i.request_id, i.account_id, CASE WHEN v_class[i.n] = 'set-aside' THEN 'too-late' ELSE v_class[i.n] END, v_at[i.n],
          i.model, i.paid, i.prompt, i.completion, i.estimated, i.held, i.in_price, i.out_price, i.charge, coalesce(i.end_reason, ''), i.key_id
        FROM unnest(p_request_id, p_account_id, p_model, p_paid, p_prompt, p_completion, p_estimated, p_held, p_input, p_output,
            p_charge, p_end_reason, p_key_id)
          WITH ORDINALITY AS i(request_id, account_id, model, paid, prompt, completion, estimated, held, in_price, out_price, charge,
            end_reason, key_id, n)
        WHERE v_class[i.n] NOT IN ('bill', 'repeated')
        ORDER BY i.request_id
        ON CONFLICT (request_id) DO UPDATE SET deliveries = s.deliveries + 1,
          reason = CASE WHEN EXCLUDED.reason = 'archived-estimate' THEN EXCLUDED.reason ELSE s.reason END,
          model = CASE WHEN s.decision IS NULL AND s.usage_estimated AND NOT EXCLUDED.usage_estimated THEN EXCLUDED.model ELSE s.model END,
          prompt_tokens = CASE WHEN s.decision IS NULL AND s.usage_estimated AND NOT EXCLUDED.usage_estimated
            THEN EXCLUDED.prompt_tokens ELSE s.prompt_tokens END,
          completion_tokens = CASE WHEN s.decision IS NULL AND s.usage_estimated AND NOT EXCLUDED.usage_estimated
            THEN EXCLUDED.completion_tokens ELSE s.completion_tokens END,
          held_micro = CASE WHEN s.decision IS NULL AND s.usage_estimated AND NOT EXCLUDED.usage_estimated
            THEN EXCLUDED.held_micro ELSE s.held_micro END,
          input_micro_per_million = CASE WHEN s.decision IS NULL AND s.usage_estimated AND NOT EXCLUDED.usage_estimated
            THEN EXCLUDED.input_micro_per_million ELSE s.input_micro_per_million END,
          output_micro_per_million = CASE WHEN s.decision IS NULL AND s.usage_estimated AND NOT EXCLUDED.usage_estimated
            THEN EXCLUDED.output_micro_per_million ELSE s.output_micro_per_million END,
          charge_micro = CASE WHEN s.decision IS NULL AND s.usage_estimated AND NOT EXCLUDED.usage_estimated
            THEN EXCLUDED.charge_micro ELSE s.charge_micro END,
          end_reason = CASE WHEN s.decision IS NULL AND s.usage_estimated AND NOT EXCLUDED.usage_estimated
            THEN EXCLUDED.end_reason ELSE s.end_reason END,
          usage_estimated = s.usage_estimated AND (s.decision IS NOT NULL OR EXCLUDED.usage_estimated),
          key_id = coalesce(s.key_id, EXCLUDED.key_id);
        RETURN QUERY
        WITH input AS (
          SELECT * FROM unnest(p_request_id, v_at, p_account_id, p_model, p_paid, p_prompt, p_completion, p_estimated, p_held, p_input,
              p_output, p_charge, p_end_reason, p_key_id)
            WITH ORDINALITY AS i(request_id, request_at, account_id, model, paid, prompt, completion, estimated, held, in_price,
              out_price, charge, end_reason, key_id, n)),
        earlier AS (
          SELECT l.request_id, l.account_id, l.paid, l.usage_estimated, l.amount_micro, l.shortfall_micro, l.prompt_tokens,
            l.completion_tokens
          FROM billing.ledger l
          WHERE l.request_id = ANY (p_request_id) AND l.request_at = ANY (v_at)
            AND l.request_at BETWEEN (SELECT min(a) FROM unnest(v_at) a) AND (SELECT max(a) FROM unnest(v_at) a)
          FOR UPDATE),
        owing AS (
          SELECT i.*, e.request_id IS NULL AS fresh, coalesce(e.amount_micro, 0) AS amount_before,
            coalesce(e.shortfall_micro, 0) AS shortfall_before,
            e.prompt_tokens AS prompt_before, e.completion_tokens AS completion_before,
            i.charge - coalesce(e.amount_micro + e.shortfall_micro, 0) AS due
          FROM input i LEFT JOIN earlier e ON e.request_id = i.request_id
          WHERE v_class[i.n] = 'bill'
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
            output_micro_per_million, amount_micro, paid, usage_estimated, held_micro, shortfall_micro, request_at, end_reason, key_id)
          SELECT t.request_id, t.account_id, t.model, t.prompt, t.completion, t.in_price, t.out_price, t.take, t.paid, t.estimated,
            t.held, t.owed - t.take, t.request_at, coalesce(t.end_reason, ''), t.key_id
          FROM taken t WHERE t.fresh ORDER BY t.request_id
          ON CONFLICT (request_id, request_at) DO NOTHING
          RETURNING request_id),
        corrected AS (
          UPDATE billing.ledger l SET model = t.model, prompt_tokens = t.prompt, completion_tokens = t.completion,
            input_micro_per_million = t.in_price, output_micro_per_million = t.out_price, held_micro = t.held, usage_estimated = false,
            amount_micro = t.amount_before + t.take - t.refund, shortfall_micro = t.shortfall_before + t.owed - t.take - t.forgiven,
            end_reason = coalesce(nullif(t.end_reason, ''), l.end_reason), key_id = coalesce(l.key_id, t.key_id)
          FROM taken t WHERE NOT t.fresh AND l.request_id = t.request_id AND l.request_at = t.request_at
          RETURNING l.request_id),
        recorded AS (
          INSERT INTO billing.charge_corrections (request_id, request_at, account_id, prompt_before, completion_before, amount_before,
            shortfall_before, prompt_after, completion_after, amount_after, shortfall_after)
          SELECT t.request_id, t.request_at, t.account_id, t.prompt_before, t.completion_before, t.amount_before, t.shortfall_before,
            t.prompt, t.completion, t.amount_before + t.take - t.refund, t.shortfall_before + t.owed - t.take - t.forgiven
          FROM taken t WHERE NOT t.fresh AND t.request_id IN (SELECT request_id FROM corrected)),
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
          CASE WHEN v_class[i.n] NOT IN ('bill', 'repeated') THEN 'set-aside'
            WHEN d.n IS NULL THEN 'repeated' WHEN d.fresh THEN 'written' ELSE 'corrected' END,
          coalesce(d.take - d.refund, 0)::bigint,
          coalesce(d.shortfall_before + d.owed - d.take - d.forgiven, 0)::bigint,
          (SELECT s.reason FROM billing.set_aside_bills s WHERE s.request_id = i.request_id AND v_class[i.n] NOT IN ('bill', 'repeated'))
        FROM input i LEFT JOIN done d ON d.n = i.n ORDER BY i.n;
        PERFORM billing.take_back_line(r.account_id, max(r.returned_total))
          FROM unnest(p_return_account_id, p_returned_total) AS r(account_id, returned_total) GROUP BY r.account_id;
      END $fn$;
    `,
};
