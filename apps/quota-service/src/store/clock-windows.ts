import type { MinuteCount } from './limits/limit-store';

/** Length of the per-minute counting window. */
export const MINUTE_MS = 60_000;
/** Length of a UTC day (Unix time has no leap seconds). */
export const DAY_MS = 86_400_000;

/** The UTC clock minute containing `nowMs`, numbered from the Unix epoch. */
export function minuteOf(nowMs: number): number {
  return Math.floor(nowMs / MINUTE_MS);
}

/** The UTC day containing `nowMs`, numbered from the Unix epoch. */
export function dayOf(nowMs: number): number {
  return Math.floor(nowMs / DAY_MS);
}

/** End of the minute containing `nowMs`, in Unix seconds (X-RateLimit-Reset). */
export function minuteEndUnixSeconds(nowMs: number): number {
  return (minuteOf(nowMs) + 1) * (MINUTE_MS / 1000);
}

/** Whole seconds until the minute containing `nowMs` ends, rounded up, so always 1 to 60 (Retry-After). */
export function secondsToMinuteEnd(nowMs: number): number {
  return Math.ceil(((minuteOf(nowMs) + 1) * MINUTE_MS - nowMs) / 1000);
}

/** A count of `count` requests in the minute of `nowMs` (the store's clock), as MinuteCount tells it. */
export function minuteCountAt(allowed: boolean, count: number, limit: number, nowMs: number): MinuteCount {
  return { allowed, count, limit, resetUnixSeconds: minuteEndUnixSeconds(nowMs), retryAfterSeconds: secondsToMinuteEnd(nowMs), nowMs };
}
