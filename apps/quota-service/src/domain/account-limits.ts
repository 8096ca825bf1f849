import { DomainError } from '@gw/errors';
import { requireId } from '@gw/service-kit';
import { LimitStore, MinuteCount, PlaceAsk, PlaceCaller, UsageTotals } from '../store/limits/limit-store';
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

/** The answer to asking for a place (AcquirePlaceResponse). */
export interface PlaceOutcome {
  granted: boolean;
  limit: number;
  /** A chat turn: refused because the account is over its per-minute limit. */
  rateLimited?: boolean;
  /** A chat turn: its count, as countRequest answers it. */
  count?: CountOutcome;
}

/** Refuses a call on a place that another caller took: the place stays its taker's. */
function anotherCallersPlace(requestId: string): DomainError {
  return new DomainError(
    'permission-denied',
    `the place of request ${requestId} was taken by another caller: only its taker gives it back`,
  );
}

/**
 * The rules of per-account limits and usage (docs/api.md#rate-limits): one count per request in
 * the UTC clock minute, a fixed number of concurrency places, usage by UTC day and all time.
 * Being over a limit is an answer, not an error; the store's own failures pass through.
 */
export class AccountLimits {
  constructor(private readonly store: LimitStore) {}

  /**
   * Counts a request; a refused request is not counted, so it cannot make a later minute worse.
   * `chatTurn`: the chat product counts a turn before its AcquirePlace (an older chat product),
   * which then takes this count rather than counting the turn again.
   */
  async countRequest(accountId: string, chatTurn = false): Promise<CountOutcome> {
    return toCountOutcome(await this.store.countRequest(requireId('account_id', accountId), chatTurn));
  }

  /**
   * Takes a place for the request just before the provider call, in the name of its caller; a
   * chat turn (`ask.countsTurn`) is counted in the same step (docs/api.md#rate-limits: the chat
   * product shares the count). A request id whose place another caller took is refused.
   */
  async acquirePlace(accountId: string, requestId: string, ask: PlaceAsk): Promise<PlaceOutcome> {
    const grant = await this.store.acquirePlace(requireId('account_id', accountId), requireId('request_id', requestId), ask);
    if (grant.refusal === 'another-callers') throw anotherCallersPlace(requestId);
    const place: PlaceOutcome = { granted: grant.granted, limit: grant.limit };
    return grant.count ? { ...place, rateLimited: grant.refusal === 'rate-limited', count: toCountOutcome(grant.count) } : place;
  }

  /**
   * Gives the place back after billing and records prompt plus completion tokens (each within
   * its bound: requireUsage); the tokens count even when the place had already cleared, or was
   * never taken (the chat product path). Only the caller that took a place gives it back: from
   * another, nothing changes and the call is refused.
   */
  async releasePlace(
    accountId: string,
    requestId: string,
    promptTokens: number,
    completionTokens: number,
    caller: PlaceCaller,
  ): Promise<{ released: boolean }> {
    const tokens = requireUsage(promptTokens, completionTokens);
    const done = await this.store.releasePlace(requireId('account_id', accountId), requireId('request_id', requestId), tokens, caller);
    if (done.refused) throw anotherCallersPlace(requestId);
    return { released: done.released };
  }

  /** Today's (UTC) and all-time tokens. */
  async getUsage(accountId: string): Promise<UsageTotals> {
    return this.store.getUsage(requireId('account_id', accountId));
  }
}
