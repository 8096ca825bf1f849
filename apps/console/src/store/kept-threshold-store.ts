/** A low-balance threshold the console kept before billing-service kept them (console.low_balance_thresholds). */
export interface KeptThreshold {
  accountId: string;
  thresholdMicro: number;
  /** The holder id that set it. */
  setBy: string;
}

/** The thresholds the console still keeps: each handed over to billing-service once, then forgotten here. */
export interface KeptThresholdStore {
  /** Up to `limit` thresholds still kept, by account id. */
  kept(limit: number): Promise<KeptThreshold[]>;
  /** Forgets a threshold billing-service now has (only if it is still the one handed over). */
  forget(threshold: KeptThreshold): Promise<void>;
}
