import { Queryable } from '@gw/service-kit';
import { monthBounds, MovementKind, StatementMovement, StatementStatus, StatementWriter } from '@gw/statement';
import { Int8, toSafeInt } from './pg-billing-rows';

/** Lines of a part of a statement, and rows fetched at a time. */
export const PART_LINES = 2000;

const UTC_TIME = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

// An account's balance at a moment ($2): the closing of its last statement kept before it, and
// every movement since, each in the month the statement lists it in (a balance entry and a
// correction of an estimate when they were made, a charge when its request was admitted, at what
// it was first charged); with no statement kept before it, less what was charged in the months
// archived before statements were kept (migration 040). So a month opens where the month before
// it closed.
const OPENING = `
  WITH kept AS (
    SELECT k.month, k.closing_micro FROM billing.kept_statements k
    WHERE k.account_id = $1 AND k.month < ($2::timestamptz AT TIME ZONE 'UTC')::date ORDER BY k.month DESC LIMIT 1),
  since AS (SELECT coalesce((SELECT (kept.month + interval '1 month') AT TIME ZONE 'UTC' FROM kept), '-infinity'::timestamptz) AS t)
  SELECT (coalesce((SELECT kept.closing_micro FROM kept), 0)
    + coalesce((SELECT sum(e.amount_micro) FROM billing.balance_entries e, since
        WHERE e.account_id = $1 AND e.created_at >= since.t AND e.created_at < $2), 0)
    - coalesce((SELECT sum(coalesce(k.amount_before, l.amount_micro)) FROM since, billing.ledger l
        LEFT JOIN billing.charge_corrections k ON k.request_id = l.request_id AND k.request_at = l.request_at
        WHERE l.account_id = $1 AND l.request_at >= since.t AND l.request_at < $2), 0)
    - coalesce((SELECT sum(k.amount_after - k.amount_before) FROM billing.charge_corrections k, since
        WHERE k.account_id = $1 AND k.created_at >= since.t AND k.created_at < $2), 0)
    - coalesce((SELECT c.amount_micro FROM billing.charged_before_statements c
        WHERE c.account_id = $1 AND NOT EXISTS (SELECT 1 FROM kept)), 0))::text AS opening`;

// Every movement of the account in [$2, $3), in time order (then balance entries, charges,
// corrections, then by id): a charge as first billed (an estimate later corrected keeps its
// estimate here), and each correction of an estimate as the difference it made.
const MOVEMENTS = `
  DECLARE statement_movements NO SCROLL CURSOR FOR
  SELECT ${UTC_TIME('m.t')} AS time, m.kind, m.request_id, m.model, m.prompt, m.completion, m.input, m.output, m.estimated,
    m.end_reason, m.paid, m.amount, m.shortfall, m.note
  FROM (
    SELECT e.created_at AS t, 0 AS rank, lpad(e.id::text, 20, '0') AS id,
      CASE e.kind WHEN 'top-up' THEN 'top-up' WHEN 'correction' THEN 'operator-correction' ELSE 'brought-forward' END AS kind,
      NULL::text AS request_id, NULL::text AS model, NULL::bigint AS prompt, NULL::bigint AS completion, NULL::bigint AS input,
      NULL::bigint AS output, NULL::boolean AS estimated, NULL::text AS end_reason, NULL::boolean AS paid, e.amount_micro AS amount,
      NULL::bigint AS shortfall, e.reason AS note
    FROM billing.balance_entries e WHERE e.account_id = $1 AND e.created_at >= $2 AND e.created_at < $3
    UNION ALL
    SELECT l.request_at, 1, l.request_id, 'charge', l.request_id, l.model, coalesce(k.prompt_before, l.prompt_tokens),
      coalesce(k.completion_before, l.completion_tokens), l.input_micro_per_million, l.output_micro_per_million,
      k.request_id IS NOT NULL OR l.usage_estimated, l.end_reason, l.paid, -coalesce(k.amount_before, l.amount_micro),
      coalesce(k.shortfall_before, l.shortfall_micro), NULL
    FROM billing.ledger l LEFT JOIN billing.charge_corrections k ON k.request_id = l.request_id AND k.request_at = l.request_at
    WHERE l.account_id = $1 AND l.request_at >= $2 AND l.request_at < $3
    UNION ALL
    SELECT k.created_at, 2, k.request_id, 'estimate-corrected', k.request_id, NULL, k.prompt_after, k.completion_after, NULL, NULL,
      false, NULL, NULL, k.amount_before - k.amount_after, k.shortfall_after - k.shortfall_before, NULL
    FROM billing.charge_corrections k WHERE k.account_id = $1 AND k.created_at >= $2 AND k.created_at < $3
  ) m
  ORDER BY m.t, m.rank, m.id`;

interface MovementRow {
  time: string;
  kind: MovementKind;
  request_id: string | null;
  model: string | null;
  prompt: Int8 | null;
  completion: Int8 | null;
  input: Int8 | null;
  output: Int8 | null;
  estimated: boolean | null;
  end_reason: string | null;
  paid: boolean | null;
  amount: Int8;
  shortfall: Int8 | null;
  note: string | null;
}

const optional = (n: Int8 | null) => (n === null ? undefined : toSafeInt(n));

const toMovement = (r: MovementRow): StatementMovement => ({
  time: r.time,
  kind: r.kind,
  amountMicro: toSafeInt(r.amount),
  requestId: r.request_id ?? undefined,
  model: r.model ?? undefined,
  promptTokens: optional(r.prompt),
  completionTokens: optional(r.completion),
  inputMicroPerMillion: optional(r.input),
  outputMicroPerMillion: optional(r.output),
  usage: r.estimated === null ? undefined : r.estimated ? 'estimated' : 'reported',
  endReason: r.end_reason ?? undefined,
  paid: r.paid ?? undefined,
  shortfallMicro: optional(r.shortfall),
  note: r.note || undefined,
});

/** What a statement came to. */
export interface MadeStatement {
  openingMicro: number;
  closingMicro: number;
  movements: number;
}

/**
 * Makes the statement of an account's month from the books `q` reads (in a transaction: the
 * movements come through a cursor) and hands its lines to `emit` in parts of at most PART_LINES
 * lines, each line with its line end.
 */
export async function makeStatement(
  q: Queryable,
  accountId: string,
  month: string,
  status: StatementStatus,
  emit: (part: string) => Promise<void>,
): Promise<MadeStatement> {
  const { start, end } = monthBounds(month);
  const opened = await q.query<{ opening: string }>(OPENING, [accountId, start]);
  const openingMicro = toSafeInt(opened.rows[0].opening);
  const writer = new StatementWriter({ accountId, month, status, openingMicro });
  let part = writer.opening();
  let movements = 0;
  await q.query(MOVEMENTS, [accountId, start, end]);
  for (;;) {
    const { rows } = await q.query<MovementRow>(`FETCH ${PART_LINES} FROM statement_movements`);
    for (const row of rows) part.push(writer.movement(toMovement(row)));
    movements += rows.length;
    if (rows.length < PART_LINES) break;
    if (part.length >= PART_LINES) {
      await emit(part.map((l) => `${l}\n`).join(''));
      part = [];
    }
  }
  await q.query('CLOSE statement_movements');
  part.push(writer.closing());
  await emit(part.map((l) => `${l}\n`).join(''));
  return { openingMicro, closingMicro: writer.closingMicro, movements };
}
