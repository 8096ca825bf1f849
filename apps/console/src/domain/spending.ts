/** One UTC day's charges, as billing.v1 DailyTotals gives them (YYYY-MM-DD, micro-LYD). */
export interface DayCharge {
  day: string;
  amountMicro: number;
}

/** The full days before today that the average is taken over. */
export const AVERAGE_DAYS = 7;

const DAY_MS = 86_400_000;

/** Where the money goes, micro-LYD. */
export interface Spending {
  /** The day counted as today: the last day DailyTotals gave (billing-service's UTC day, the one its ledger rows are dated by). */
  today: string;
  /** Charged today. */
  todayMicro: number;
  /** Charged in the AVERAGE_DAYS full days before today, all together. */
  lastDaysMicro: number;
  /** `lastDaysMicro` per day, rounded to a whole micro-LYD. */
  averageMicro: number;
  /**
   * Whole days the balance lasts at that average (balance × 7 / the 7 days' sum, rounded down;
   * 0 for less than a day or no balance); undefined when nothing was spent in those days.
   */
  daysLeft: number | undefined;
}

const dayBefore = (day: string, back: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) - back * DAY_MS).toISOString().slice(0, 10);

/**
 * Spent today, the average of the AVERAGE_DAYS full days before it and how long the balance
 * lasts at that rate, from DailyTotals' rows (oldest first, ending today). A day without a row,
 * or before the account existed, counts as a day without spending.
 */
export function spendingOf(days: readonly DayCharge[], balanceMicro: number): Spending {
  const today = days.length ? days[days.length - 1].day : new Date().toISOString().slice(0, 10);
  const byDay = new Map(days.map((d) => [d.day, d.amountMicro]));
  let lastDaysMicro = 0;
  for (let back = 1; back <= AVERAGE_DAYS; back++) lastDaysMicro += byDay.get(dayBefore(today, back)) ?? 0;
  // Integer arithmetic: a balance near 2^53 micro-LYD times 7 is past what a number holds exactly.
  const daysLeft =
    lastDaysMicro > 0 ? Number((BigInt(Math.max(0, balanceMicro)) * BigInt(AVERAGE_DAYS)) / BigInt(lastDaysMicro)) : undefined;
  return { today, todayMicro: byDay.get(today) ?? 0, lastDaysMicro, averageMicro: Math.round(lastDaysMicro / AVERAGE_DAYS), daysLeft };
}
