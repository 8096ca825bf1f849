/** The free tier's settings, the same for every replica (`ctl freetier set`). */
export interface FreeTierSettings {
  /** Each account's free allowance per UTC day, tokens. */
  dailyTokens: number;
  /** Tokens all free requests together may use per UTC day. */
  poolTokens: number;
  paused: boolean;
  enabled: boolean;
}

/** The settings and the store's clock, read together at the start of a decision. */
export interface FreeTierSnapshot {
  settings: FreeTierSettings;
  /** The store's time (Redis TIME), ms; decides the UTC day and the peak hours. */
  nowMs: number;
}

/** A reservation to place against the account's allowance and the pool. */
export interface FreeReservation {
  accountId: string;
  requestId: string;
  tokens: number;
  dailyTokens: number;
  poolTokens: number;
  /** A reservation not settled by then is returned (its tokens count as unused). */
  ttlMs: number;
}

/**
 * What reserving came to. `allowance-used-up`: the account had used its whole allowance;
 * `allowance-too-small`: some is left, but less than the tokens; `pool-exhausted`: the pool
 * cannot cover the tokens. Nothing is reserved unless `reserved`.
 */
export type ReserveOutcome = 'reserved' | 'allowance-used-up' | 'allowance-too-small' | 'pool-exhausted';

/**
 * The free tier's state: settings, each account's allowance and the global pool, both
 * counted per UTC day (reset at 00:00 UTC) in tokens, reservations included. A reservation
 * belongs to the day it was made on: settling it after midnight changes nothing. Every
 * operation takes its time from the store's clock; implementations behave identically (see
 * test/store-contracts/free-tier-*.contract.ts); a store that cannot answer rejects with StoreUnavailableError.
 */
export interface FreeTierStore {
  /** The settings (the operator's, else the defaults the store was opened with) and the time. */
  snapshot(): Promise<FreeTierSnapshot>;
  /** Changes the given settings for every replica; returns them all. */
  updateSettings(change: Partial<FreeTierSettings>): Promise<FreeTierSettings>;
  /**
   * Reserves the tokens against the allowance, then the pool, never taking either past its
   * limit; a request id that holds a reservation gets `reserved` again without a second one.
   */
  reserve(reservation: FreeReservation): Promise<ReserveOutcome>;
  /**
   * Replaces the request's reservation by the tokens really used (0 returns it whole), in the
   * allowance and the pool; once per request id (false when it holds none). A reservation that
   * expired is settled too: its real tokens are counted then.
   */
  settle(accountId: string, requestId: string, tokens: number): Promise<boolean>;
  /** The account's allowance used today (UTC), live reservations included. */
  allowanceUsed(accountId: string): Promise<number>;
}
