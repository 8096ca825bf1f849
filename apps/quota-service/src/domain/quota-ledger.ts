import { requireId } from '@gw/service-kit';
import { LimitStore, MinuteCount, PlaceGrant, UsageTotals } from '../store/limits/limit-store';
import { requireUsage } from './field-checks';

/** The answer to counting a request; feeds the X-RateLimit-* and Retry-After headers. */
export interface CountOutcome {
  allowed: boolean;
  limit: number;
  /** Left in the current minute after this request; never negative. */
  remaining: number;
  resetUnixSeconds: number;
  /** Seconds until the minute ends when refused; 0 when allowed. */
  retryAfterSeconds: number;
  /** The store's clock when it counted, Unix ms, so that a caller can tell when the minute ends by that clock. */
  nowUnixMs: number;
}

/** A store's count as quota.v1 answers it (CountRequestResponse): what is left, and Retry-After only when refused. */
export function toCountOutcome(counted: MinuteCount): CountOutcome {
  return {
    allowed: counted.allowed,
    limit: counted.limit,
    remaining: Math.max(0, counted.limit - counted.count),
    resetUnixSeconds: counted.resetUnixSeconds,
    retryAfterSeconds: counted.allowed ? 0 : counted.retryAfterSeconds,
    nowUnixMs: counted.nowMs,
  };
}

/**
 * The rules of per-account limits and usage (docs/api.md#rate-limits): one count per request in
 * the UTC clock minute, a fixed number of concurrency places, usage by UTC day and all time.
 * Being over a limit is an answer, not an error; the store's own failures pass through.
 */
export class QuotaLedger {
  constructor(private readonly store: LimitStore) {}

  /** Counts a request; a refused request is not counted, so it cannot make a later minute worse. */
  async countRequest(accountId: string): Promise<CountOutcome> {
    return toCountOutcome(await this.store.countRequest(requireId('account_id', accountId)));
  }

  /** Takes a place for the request just before the provider call. */
  async acquirePlace(accountId: string, requestId: string): Promise<PlaceGrant> {
    return this.store.acquirePlace(requireId('account_id', accountId), requireId('request_id', requestId));
  }

  /**
   * Gives the place back after billing and records prompt plus completion tokens (each within
   * its bound: requireUsage); the tokens count even when the place had already cleared, or was
   * never taken (the chat product path).
   */
  async releasePlace(accountId: string, requestId: string, promptTokens: number, completionTokens: number): Promise<{ released: boolean }> {
    const tokens = requireUsage(promptTokens, completionTokens);
    return this.store.releasePlace(requireId('account_id', accountId), requireId('request_id', requestId), tokens);
  }

  /** Today's (UTC) and all-time tokens. */
  async getUsage(accountId: string): Promise<UsageTotals> {
    return this.store.getUsage(requireId('account_id', accountId));
  }
}
