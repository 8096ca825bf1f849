import { Queryable } from '@gw/service-kit';
import { Int8, toSafeInt } from '../../store/pg-billing-rows';
import { HoldRecord, LedgerRecord } from './hold-records';

/** A `billing.holds` row. */
export interface HoldRow {
  request_id: string;
  account_id: string;
  model: string;
  amount_micro: Int8;
  input_micro_per_million: Int8;
  output_micro_per_million: Int8;
  created_at: Date;
}

/** A `billing.ledger` row, as the older path reads it. */
export interface LedgerRow {
  request_id: string;
  account_id: string;
  model: string;
  prompt_tokens: Int8;
  completion_tokens: Int8;
  input_micro_per_million: Int8;
  output_micro_per_million: Int8;
  amount_micro: Int8;
  paid: boolean;
  usage_estimated: boolean;
  created_at: Date;
}

/** Column lists matching the row types. */
export const HOLD_COLUMNS = 'request_id, account_id, model, amount_micro, input_micro_per_million, output_micro_per_million, created_at';
export const LEDGER_COLUMNS =
  'request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million, output_micro_per_million, ' +
  'amount_micro, paid, usage_estimated, created_at';

/** Maps a hold row. */
export const toHold = (r: HoldRow): HoldRecord => ({
  requestId: r.request_id,
  accountId: r.account_id,
  model: r.model,
  amountMicro: toSafeInt(r.amount_micro),
  inputMicroPerMillion: toSafeInt(r.input_micro_per_million),
  outputMicroPerMillion: toSafeInt(r.output_micro_per_million),
  createdAt: r.created_at,
});

/** Maps a ledger row. */
export const toLedger = (r: LedgerRow): LedgerRecord => ({
  requestId: r.request_id,
  accountId: r.account_id,
  model: r.model,
  promptTokens: toSafeInt(r.prompt_tokens),
  completionTokens: toSafeInt(r.completion_tokens),
  inputMicroPerMillion: toSafeInt(r.input_micro_per_million),
  outputMicroPerMillion: toSafeInt(r.output_micro_per_million),
  amountMicro: toSafeInt(r.amount_micro),
  paid: r.paid,
  usageEstimated: r.usage_estimated,
  createdAt: r.created_at,
});

/** The ledger row of a request id. */
export async function readLedger(q: Queryable, requestId: string): Promise<LedgerRecord | undefined> {
  const { rows } = await q.query<LedgerRow>(`SELECT ${LEDGER_COLUMNS} FROM billing.ledger WHERE request_id = $1`, [requestId]);
  return rows[0] && toLedger(rows[0]);
}

/** The open hold of a request id. */
export async function readHold(q: Queryable, requestId: string): Promise<HoldRecord | undefined> {
  const { rows } = await q.query<HoldRow>(`SELECT ${HOLD_COLUMNS} FROM billing.holds WHERE request_id = $1`, [requestId]);
  return rows[0] && toHold(rows[0]);
}
