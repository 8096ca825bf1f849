/** A low-balance threshold and where the balance stands against it, micro-LYD. */
export interface ThresholdReading {
  /** undefined: none set. */
  thresholdMicro: number | undefined;
  balanceMicro: number;
  /** The balance is at or below the threshold. */
  low: boolean;
}

/** Each account's low-balance threshold, kept beside its balance so that a move of the balance is judged against it at once. */
export interface ThresholdStore {
  /**
   * Sets (or removes, undefined) an account's threshold, kept with who set it; with `keepExisting`,
   * only where none is set. Makes no event (the balance did not move). The threshold in force after it.
   */
  setThreshold(accountId: string, thresholdMicro: number | undefined, keepExisting: boolean, setBy: string): Promise<number | undefined>;
  /** An account's threshold and balance. */
  threshold(accountId: string): Promise<ThresholdReading>;
}
