import { HoldRecord, LedgerRecord, PriceRecord } from './billing-records';

/** A BIGINT as it arrives: a string from `pg`, a number (a bigint when large) from PGlite. */
export type Int8 = string | number | bigint;

/** A BIGINT column as a JS integer; refuses anything that is not a safe integer. */
export function toSafeInt(value: Int8): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`integer column out of safe range: ${String(value)}`);
  return n;
}

/** A `billing.prices` row. */
export interface PriceRow {
  model: string;
  input_micro_per_million: Int8;
  output_micro_per_million: Int8;
}

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

/** A `billing.ledger` row. */
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
export const PRICE_COLUMNS = 'model, input_micro_per_million, output_micro_per_million';
export const HOLD_COLUMNS = 'request_id, account_id, model, amount_micro, input_micro_per_million, output_micro_per_million, created_at';
export const LEDGER_COLUMNS =
  'request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million, output_micro_per_million, ' +
  'amount_micro, paid, usage_estimated, created_at';

/** Maps a price row. */
export const toPrice = (r: PriceRow): PriceRecord => ({
  model: r.model,
  inputMicroPerMillion: toSafeInt(r.input_micro_per_million),
  outputMicroPerMillion: toSafeInt(r.output_micro_per_million),
});

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
