const MICRO_DIGITS = 6;
const MICRO_PER_LYD = 10 ** MICRO_DIGITS;
const DECIMAL = /^(-)?(\d+)(?:\.(\d{1,6}))?$/;

/**
 * Parses an LYD amount written in decimal ("12.5", "-0.000001") into integer micro-LYD,
 * exactly (no binary floating point). Undefined for anything else or more than 6 decimals.
 */
export function parseLyd(text: string): number | undefined {
  const m = DECIMAL.exec(text.trim());
  if (!m) return undefined;
  const micro = BigInt(m[2]) * BigInt(MICRO_PER_LYD) + BigInt((m[3] ?? '').padEnd(MICRO_DIGITS, '0'));
  const signed = m[1] ? -micro : micro;
  return Number.isSafeInteger(Number(signed)) ? Number(signed) : undefined;
}

/** micro-LYD as the LYD number shown in JSON replies; for display only, never computed on. */
export function microToLyd(micro: number): number {
  const sign = micro < 0 ? '-' : '';
  const abs = Math.abs(micro);
  return Number(`${sign}${Math.floor(abs / MICRO_PER_LYD)}.${String(abs % MICRO_PER_LYD).padStart(MICRO_DIGITS, '0')}`);
}
