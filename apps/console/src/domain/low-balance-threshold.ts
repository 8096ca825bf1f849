import { readLyd } from '@gw/money';

/** Longer than any amount a threshold can be (the largest has 17 digits and a point): refused before it is read. */
export const MAX_THRESHOLD_TEXT = 32;

/** A threshold read from the form: micro-LYD, undefined for none (an empty field), or what is wrong with it. */
export type ThresholdReading = { ok: true; micro: number | undefined } | { ok: false; problem: string };

/**
 * Reads the low-balance threshold a holder typed: an amount in LYD of at least 0 with at most 6
 * decimals ("2.5", "0.000001"), at most MAX_MICRO_LYD as every amount kept, read exactly (no
 * binary floating point); an empty field removes the threshold. A problem is a sentence for the page.
 */
export function readThreshold(text: string): ThresholdReading {
  const typed = text.trim();
  if (typed === '') return { ok: true, micro: undefined };
  if (typed.length > MAX_THRESHOLD_TEXT)
    return { ok: false, problem: `The threshold is longer than ${MAX_THRESHOLD_TEXT} characters: write an amount in LYD, e.g. 12.5.` };
  const reading = readLyd(typed);
  if (!reading.ok) return { ok: false, problem: `The threshold ${reading.problem}.` };
  if (reading.micro < 0 || typed.startsWith('-')) return { ok: false, problem: 'The threshold cannot be below 0 LYD.' };
  return { ok: true, micro: reading.micro };
}
