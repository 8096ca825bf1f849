import { HOUR_MS, hourStart, SpendBucket } from './spend-buckets';

/** How an account's usual hour is read from its history (part of SpendRule). */
export interface UsualHourRule {
  /** Days of hourly buckets read. */
  historyDays: number;
  /** The quantile of the hours' spends taken as the usual busy hour (nearest rank; 1 is the busiest hour). */
  quantile: number;
  /**
   * undefined: every hour of the history counts. A number n: only the hours of day within n of the
   * hour now (UTC, so the account's daily cycle whatever its time zone), the quantile of all hours
   * still counting for `allHoursShare` of itself.
   */
  sameHourSpread?: number;
  allHoursShare: number;
}

/**
 * An account's usual hour, read from the complete hours before the last one: that hour and the one
 * running now are left out, so that a leak running now does not raise its own bar. A new account's
 * history starts at its first billed hour.
 */
export interface UsualSpend {
  /** The hour it was read for (its start, Unix ms): it holds until the next one starts. */
  hourMs: number;
  /** micro-LYD in the account's usual busy hour. */
  usualMicro: number;
  /** The hours of history it was read from (0: none, a new account). */
  hours: number;
  /** Each key's share of the history's spend, 0 to 1 (a key absent from it has none). */
  keyShares: Record<string, number>;
}

/** The value at quantile q of `values` (nearest rank), 0 when there is none. `values` is reordered (a selection, not a sort). */
function quantileOf(values: Float64Array, q: number): number {
  if (values.length === 0) return 0;
  const k = Math.min(values.length - 1, Math.max(0, Math.ceil(q * values.length) - 1));
  let [low, high] = [0, values.length - 1];
  while (low < high) {
    const pivot = values[(low + high) >> 1];
    let [i, j] = [low, high];
    while (i <= j) {
      while (values[i] < pivot) i++;
      while (values[j] > pivot) j--;
      if (i <= j) {
        [values[i], values[j]] = [values[j], values[i]];
        i++;
        j--;
      }
    }
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else break;
  }
  return values[k];
}

const hourOfDay = (ms: number) => Math.floor(ms / HOUR_MS) % 24;

/** Whether two hours of day are within `spread` of each other, around midnight too. */
const near = (a: number, b: number, spread: number) => Math.min(Math.abs(a - b), 24 - Math.abs(a - b)) <= spread;

/** The account's usual hour at `nowMs` from its hourly buckets (any others are left out); see UsualSpend. */
export function usualSpendOf(hours: readonly SpendBucket[], nowMs: number, rule: UsualHourRule): UsualSpend {
  const hourMs = hourStart(nowMs);
  const end = hourMs - HOUR_MS;
  const start = hourMs - rule.historyDays * 24 * HOUR_MS;
  const count = (end - start) / HOUR_MS;
  const totals = new Float64Array(count);
  const keySpend = new Map<string, number>();
  let first = count;
  let spent = 0;
  for (const b of hours) {
    if (b.startMs < start || b.startMs >= end || b.spendMicro <= 0) continue;
    const i = Math.floor((b.startMs - start) / HOUR_MS);
    totals[i] += b.spendMicro;
    keySpend.set(b.keyId, (keySpend.get(b.keyId) ?? 0) + b.spendMicro);
    spent += b.spendMicro;
    first = Math.min(first, i);
  }
  if (first === count) return { hourMs, usualMicro: 0, hours: 0, keyShares: {} };
  const all = totals.slice(first);
  const keyShares: Record<string, number> = {};
  for (const [keyId, spend] of keySpend) keyShares[keyId] = spend / spent;
  const spread = rule.sameHourSpread;
  if (spread === undefined) return { hourMs, usualMicro: quantileOf(all, rule.quantile), hours: all.length, keyShares };
  const now = hourOfDay(hourMs);
  const same = all.filter((_, i) => near(hourOfDay(start + (first + i) * HOUR_MS), now, spread));
  const usualMicro = Math.max(quantileOf(same, rule.quantile), quantileOf(all, rule.quantile) * rule.allHoursShare);
  return { hourMs, usualMicro, hours: all.length, keyShares };
}
