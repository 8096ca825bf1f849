import { Queryable } from '@gw/service-kit';
import { Int8, toSafeInt } from '../../store/pg-billing-rows';
import { HoldRecord, SettleUsage } from './hold-records';
import { SettleOutcome } from './hold-store';
import { HOLD_COLUMNS, HoldRow, LEDGER_COLUMNS, LedgerRow, toHold, toLedger } from './pg-hold-rows';

/** The charge of one open hold, worked out from the hold as read. */
export interface OpenHoldCharge {
  hold: HoldRecord;
  usage: SettleUsage;
  amountMicro: number;
}

// Takes the charges of many open holds in one statement, so one transaction: each hold is
// deleted, its ledger row written, and every account's balance moved by the sum of its charges.
// A hold applies only while it is still the one its charge was worked out from (amount and
// prices); any other is left alone. Request ids must be distinct.
const CHARGE_OPEN_HOLDS = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::boolean[])
      AS i(request_id, held_micro, input_price, output_price, prompt_tokens, completion_tokens, charge_micro, usage_estimated)),
  taken AS (
    DELETE FROM billing.holds h USING input i
    WHERE h.request_id = i.request_id AND h.amount_micro = i.held_micro
      AND h.input_micro_per_million = i.input_price AND h.output_micro_per_million = i.output_price
    RETURNING h.request_id, h.account_id, h.model, h.amount_micro, h.input_micro_per_million, h.output_micro_per_million),
  charged AS (
    SELECT t.*, i.prompt_tokens, i.completion_tokens, i.charge_micro, i.usage_estimated FROM taken t JOIN input i USING (request_id)),
  entry AS (
    INSERT INTO billing.ledger (request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million,
      output_micro_per_million, amount_micro, paid, usage_estimated, request_at)
    SELECT request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million, output_micro_per_million,
      charge_micro, true, usage_estimated, billing.ledger_time(request_id) FROM charged
    RETURNING ${LEDGER_COLUMNS}),
  moved AS (
    UPDATE billing.balances b SET balance_micro = b.balance_micro - s.charge, held_micro = b.held_micro - s.held, updated_at = now()
    FROM (SELECT account_id, sum(charge_micro) AS charge, sum(amount_micro) AS held FROM charged GROUP BY account_id) s
    WHERE b.account_id = s.account_id RETURNING b.account_id, b.balance_micro)
  SELECT entry.*, moved.balance_micro AS balance_after FROM entry JOIN moved USING (account_id)`;

/** The open holds of these request ids, by request id. */
export async function readHolds(q: Queryable, requestIds: string[]): Promise<Map<string, HoldRecord>> {
  const { rows } = await q.query<HoldRow>(`SELECT ${HOLD_COLUMNS} FROM billing.holds WHERE request_id = ANY($1::text[])`, [requestIds]);
  return new Map(rows.map((row) => [row.request_id, toHold(row)]));
}

/**
 * Takes the charges in one statement; the outcome of each request it settled, by request id.
 * The balance of each is the account's balance after every charge of the call.
 */
export async function chargeOpenHolds(q: Queryable, charges: OpenHoldCharge[]): Promise<Map<string, SettleOutcome>> {
  const column = <T>(pick: (c: OpenHoldCharge) => T) => charges.map(pick);
  const { rows } = await q.query<LedgerRow & { balance_after: Int8 }>(CHARGE_OPEN_HOLDS, [
    column((c) => c.hold.requestId),
    column((c) => c.hold.amountMicro),
    column((c) => c.hold.inputMicroPerMillion),
    column((c) => c.hold.outputMicroPerMillion),
    column((c) => c.usage.promptTokens),
    column((c) => c.usage.completionTokens),
    column((c) => c.amountMicro),
    column((c) => c.usage.usageEstimated),
  ]);
  return new Map(
    rows.map((row) => [row.request_id, { entry: toLedger(row), balanceMicro: toSafeInt(row.balance_after), repeated: false }]),
  );
}
