import { AppError } from '@gw/errors';
import { MinuteCount } from '../domain/minute-refusals';

/** Headers admission gives a reply: X-RateLimit-* once the request is counted, Retry-After on a rate refusal. */
export type RateHeaders = Readonly<Record<string, string>>;

/**
 * What admission decided, with the headers the reply carries either way: the refusal (written by
 * the error handler) or what passed.
 */
export type Verdict<T = true> = { headers: RateHeaders; refused: AppError } | { headers: RateHeaders; refused?: undefined; passed: T };

/** Nothing decided yet, nothing to write. */
export const NOT_DECIDED: Verdict = { headers: {}, passed: true };

/** X-RateLimit-Limit, -Remaining and -Reset of a count (docs/api.md#rate-limits). */
export function rateHeaders(count: Pick<MinuteCount, 'limit' | 'remaining' | 'resetUnixSeconds'>): RateHeaders {
  return {
    'X-RateLimit-Limit': String(count.limit),
    'X-RateLimit-Remaining': String(count.remaining),
    'X-RateLimit-Reset': String(count.resetUnixSeconds),
  };
}

/** A count's verdict: its rate headers, and over the limit 429 rate_limit_error with Retry-After. */
export function countVerdict(count: MinuteCount): Verdict {
  const headers = rateHeaders(count);
  if (count.allowed) return { headers, passed: true };
  return {
    headers: { ...headers, 'Retry-After': String(count.retryAfterSeconds) },
    refused: new AppError('rate_limit_error', `Rate limit reached: ${count.limit} requests per minute.`, { limit: count.limit }),
  };
}
