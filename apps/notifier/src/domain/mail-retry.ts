import { Backoff, backoffMs } from '@gw/service-kit';

/** What follows a try the mail server did not take: another try after a wait, or none. */
export type RetryDecision = { retryInMs: number } | { giveUp: true };

/**
 * After `attempts` tries of a mail (this failed one included): the next after the one retry
 * policy's wait (backoffMs: doubling from `backoff.firstMs` up to `backoff.maxMs`, jittered), or
 * none once `maxAttempts` were made.
 */
export function afterFailedTry(attempts: number, backoff: Backoff, maxAttempts: number, random?: () => number): RetryDecision {
  if (attempts >= maxAttempts) return { giveUp: true };
  return { retryInMs: backoffMs(attempts, backoff, random) };
}
