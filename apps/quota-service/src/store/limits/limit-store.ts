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

/**
 * Who takes or frees a place: the caller's verified identity ('edge', 'chat-product'), or
 * ANY_CALLER on a plain-text server (local experiments), where no identity is known: its places
 * are the edge's and it may free any place.
 */
export type PlaceCaller = string;
/** The caller of a plain-text server. */
export const ANY_CALLER: PlaceCaller = '';
/** The edge: the places of API requests (Admit writes them as the edge's). */
export const EDGE_CALLER: PlaceCaller = 'edge';

/** Who asks for a place, and whether the ask is a chat turn to count in the minute first. */
export interface PlaceAsk {
  caller: PlaceCaller;
  /** The chat product's turn: counted in the account's clock minute in the same step (MinuteCount). */
  countsTurn: boolean;
}

/** The outcome of asking for a concurrency place. */
export interface PlaceGrant {
  granted: boolean;
  limit: number;
  /**
   * Why not granted: every place is taken, the turn is over the per-minute limit (nothing
   * taken or counted), or the request id holds a place another caller took (nothing changed).
   */
  refusal?: 'no-place' | 'rate-limited' | 'another-callers';
  /** A counted turn (countsTurn): the minute's count as the ask left it. */
  count?: MinuteCount;
}

/** What giving a place back did. */
export interface ReleasedPlace {
  /** True when the request held its place and it is now free. */
  released: boolean;
  /** True when another caller took the place: nothing changed, the place stays and no usage is added. */
  refused: boolean;
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
  /**
   * Counts a request in the account's current UTC clock minute, unless the limit is reached.
   * `chatTurn`: the chat product's count of a turn (an older chat product's, before its
   * AcquirePlace), which, allowed, leaves the account a counted turn that its next counted ask
   * for a place in the same minute takes instead of counting again.
   */
  countRequest(accountId: string, chatTurn?: boolean): Promise<MinuteCount>;
  /**
   * Takes a place for `requestId`, in the name of `ask.caller` (the edge's when not given), when
   * fewer than the limit are held. Asking again with a request id that holds a place of the same
   * caller grants it again; one that holds another caller's is refused. `ask.countsTurn` counts
   * the turn in the clock minute first (not again for a request id that holds its place, nor
   * when a counted turn of the minute is left): over the limit it is refused. The turn is counted
   * when no place is left. Any other refusal changes nothing.
   */
  acquirePlace(accountId: string, requestId: string, ask?: PlaceAsk): Promise<PlaceGrant>;
  /**
   * Frees the place of `requestId` (released=false when it held none, or the places had
   * cleared) and always adds `tokens` to today's and the all-time usage; unless another caller
   * than `caller` (ANY_CALLER when not given) took it: refused, and nothing changes.
   */
  releasePlace(accountId: string, requestId: string, tokens: number, caller?: PlaceCaller): Promise<ReleasedPlace>;
  /**
   * The API's end of a request: like releasePlace by the edge (a place another caller took
   * under the same id stays), but once per request id. A request id finished within
   * FINISH_MEMORY_MS changes nothing and answers repeated=true.
   */
  finishRequest(accountId: string, requestId: string, tokens: number): Promise<FinishedRequest>;
  getUsage(accountId: string): Promise<UsageTotals>;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
}
