import { PriceRecord } from './billing-records';

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

/** The columns of a PriceRow. */
export const PRICE_COLUMNS = 'model, input_micro_per_million, output_micro_per_million';

/** Maps a price row. */
export const toPrice = (r: PriceRow): PriceRecord => ({
  model: r.model,
  inputMicroPerMillion: toSafeInt(r.input_micro_per_million),
  outputMicroPerMillion: toSafeInt(r.output_micro_per_million),
});
