/** A range of whole UTC hours, [startHour, endHour); it may wrap past midnight (22-6). */
export interface PeakHours {
  startHour: number;
  endHour: number;
}

const RANGE = /^(\d{1,2})-(\d{1,2})$/;

/**
 * Reads `START-END` (UTC hours, end excluded, e.g. `0-17` or `22-6`); equal hours mean no peak
 * hours at all. Throws on anything else, naming `name`.
 */
export function parsePeakHours(name: string, text: string): PeakHours {
  const m = RANGE.exec(text.trim());
  const [startHour, endHour] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
  if (!(startHour <= 23 && endHour <= 24))
    throw new Error(`${name} must be START-END in whole UTC hours (like 0-17 or 22-6), got "${text}"`);
  return { startHour, endHour };
}

/** Whether the time `nowMs` falls in the peak hours. */
export function isPeakHour(hours: PeakHours, nowMs: number): boolean {
  const hour = new Date(nowMs).getUTCHours();
  const { startHour, endHour } = hours;
  if (startHour === endHour) return false;
  return startHour < endHour ? hour >= startHour && hour < endHour : hour >= startHour || hour < endHour;
}
