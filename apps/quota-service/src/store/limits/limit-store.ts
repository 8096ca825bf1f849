/** The limits a store enforces; the same for every account (docs/api.md#rate-limits). */
export interface LimitSettings {
  /** Requests counted per account and UTC clock minute. */
  requestsPerMinute: number;
  /** Concurrency places per account. */
  concurrentPlaces: number;
  /** All places of an account clear when none was granted for this long. */
  placeRecoveryMs: number;
}

/** The outcome of counting one request in the account's current clock minute. */
export interface MinuteCount {
  /** False when the minute's limit was already reached; a refused call is not counted. */
  allowed: boolean;
  /** Requests counted in this minute, this one included when allowed; never above `limit`. */
  count: number;
  limit: number;
  /** End of the current minute, Unix seconds. */
  resetUnixSeconds: number;
  /** Whole seconds (at least 1) until the minute ends. */
  retryAfterSeconds: number;
  /** The store's clock when it counted, Unix ms: the clock the minute is measured by. */
  nowMs: number;
}

/** The outcome of asking for a concurrency place. */
export interface PlaceGrant {
  granted: boolean;
  limit: number;
}

/** What finishing an API request did to the account's places and usage. */
export interface FinishedRequest {
  /** True when the request still held its place and it is now free. */
  released: boolean;
  /** True when the request id was finished before, within FINISH_MEMORY_MS: nothing changed. */
  repeated: boolean;
}

/** How long a finished request id is remembered, so that a retried FinishRequest counts nothing twice. */
export const FINISH_MEMORY_MS = 3_600_000;

/** Tokens (prompt plus completion) of an account. */
export interface UsageTotals {
  /** Since 00:00 UTC of the store's current day. */
  todayTokens: number;
  /** All time. */
  totalTokens: number;
}

/**
 * Per-account counters behind quota.v1.Quota. Every operation is atomic per account and takes
 * its time from the store's own clock, so that all replicas agree. Implementations must behave
 * identically (see test/store-contracts/limit-store.contract.ts); a store that cannot answer rejects with
 * StoreUnavailableError.
 */
export interface LimitStore {
  /** Counts a request in the account's current UTC clock minute, unless the limit is reached. */
  countRequest(accountId: string): Promise<MinuteCount>;
  /**
   * Takes a place for `requestId` when fewer than the limit are held. Asking again with a
   * request id that holds a place grants it again. A refusal changes nothing.
   */
  acquirePlace(accountId: string, requestId: string): Promise<PlaceGrant>;
  /**
   * Frees the place of `requestId` (released=false when it held none, or the places had
   * cleared) and always adds `tokens` to today's and the all-time usage.
   */
  releasePlace(accountId: string, requestId: string, tokens: number): Promise<{ released: boolean }>;
  /**
   * The API's end of a request: like releasePlace, but once per request id. A request id
   * finished within FINISH_MEMORY_MS changes nothing and answers repeated=true.
   */
  finishRequest(accountId: string, requestId: string, tokens: number): Promise<FinishedRequest>;
  getUsage(accountId: string): Promise<UsageTotals>;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
}
