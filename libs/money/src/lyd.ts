const MICRO_DIGITS = 6;
const MICRO_PER_LYD = 10 ** MICRO_DIGITS;
const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * The largest amount kept, 2^53 − 1 micro-LYD (9,007,199,254.740991 LYD): the largest integer a
 * JSON number or a JavaScript number holds exactly. Balances and prices stay within ±this.
 */
export const MAX_MICRO_LYD = Number.MAX_SAFE_INTEGER;

/**
 * The highest price of a model, per million prompt or completion tokens: 1,000 LYD
 * (10^9 micro-LYD), hundreds of times any real price. It bounds what one request can cost: at
 * most a context window of prompt and 32,768 completion tokens, about 1,033 LYD, so that a
 * request's hold and any day's sum of charges stay far inside MAX_MICRO_LYD.
 */
export const MAX_PRICE_MICRO_LYD_PER_MILLION = 1_000_000_000;
// Written out with integer arithmetic: microToLyd's number would round the last decimal.

/** micro-LYD as an LYD decimal with exactly 6 decimals ("12.500000", "-0.000001", "0.000000"), from the integer, no float. */
export function lydText(micro: number): string {
  const sign = micro < 0 ? '-' : '';
  const abs = Math.abs(micro);
  return `${sign}${Math.floor(abs / MICRO_PER_LYD)}.${String(abs % MICRO_PER_LYD).padStart(MICRO_DIGITS, '0')}`;
}

const MAX_LYD_TEXT = lydText(MAX_MICRO_LYD);

/** An LYD amount read from text: integer micro-LYD, or why the text is not one. */
export type LydReading = { ok: true; micro: number } | { ok: false; problem: string };

/**
 * Reads an LYD amount written in decimal ("12.5", "-0.000001") as integer micro-LYD, exactly (no
 * binary floating point). Refused, with the reason: anything but digits with an optional minus
 * sign and decimal point, more than 6 decimals (finer than one micro-LYD), and amounts beyond
 * ±MAX_MICRO_LYD.
 */
export function readLyd(text: string): LydReading {
  const m = DECIMAL.exec(text.trim());
  if (!m) return { ok: false, problem: `is not an amount in LYD: "${text}" (write digits, a point and up to 6 decimals, e.g. 12.5)` };
  const decimals = m[3] ?? '';
  if (decimals.length > MICRO_DIGITS)
    return { ok: false, problem: `has more than ${MICRO_DIGITS} decimals: the smallest amount is 0.000001 LYD` };
  const micro = BigInt(m[2]) * BigInt(MICRO_PER_LYD) + BigInt(decimals.padEnd(MICRO_DIGITS, '0'));
  if (micro > BigInt(MAX_MICRO_LYD)) return { ok: false, problem: `is beyond ${MAX_LYD_TEXT} LYD, the largest amount kept exactly` };
  return { ok: true, micro: Number(m[1] ? -micro : micro) || 0 };
}

/** readLyd's micro-LYD, or undefined for a text it refuses. */
export function parseLyd(text: string): number | undefined {
  const reading = readLyd(text);
  return reading.ok ? reading.micro : undefined;
}

/** micro-LYD as the LYD number shown in JSON replies; for display only, never computed on. */
export function microToLyd(micro: number): number {
  return Number(lydText(micro));
}
