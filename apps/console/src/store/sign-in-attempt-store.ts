/**
 * One count a sign-in attempt is taken against. Each key counts attempts in a fixed window that
 * starts at its first attempt. Once `limit` attempts are counted, further ones are refused until
 * the window ends, or, with `slowIntervalMs`, let through one per interval.
 */
export interface AttemptBound {
  key: string;
  limit: number;
  slowIntervalMs?: number;
}

/** Whether an attempt was counted, or how long until one may be. */
export type AttemptOutcome = { taken: true } | { taken: false; retryAfterMs: number };

/** Sign-in attempt counts that every console replica shares. */
export interface SignInAttemptStore {
  /**
   * Counts one attempt against every bound, atomically and all or nothing: when any bound
   * refuses, nothing is counted. Attempts sent at the same moment are counted one after another.
   */
  take(bounds: AttemptBound[], windowMs: number, nowMs: number): Promise<AttemptOutcome>;
  /** After a right password: forgets the counts of `forget` and takes one attempt back from `giveBack`. */
  settle(forget: string[], giveBack: string[], nowMs: number): Promise<void>;
  /** Removes counts whose window and slowing have ended. */
  deleteEnded(nowMs: number): Promise<void>;
}
