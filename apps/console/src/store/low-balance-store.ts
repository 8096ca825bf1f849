/**
 * The low-balance threshold of each account (Postgres schema `console`): one per account, as its
 * balance is the account's, whichever of its holders set it.
 */
export interface LowBalanceStore {
  /** The account's threshold, micro-LYD; undefined when none is set. */
  threshold(accountId: string): Promise<number | undefined>;
  /** Sets the account's threshold (micro-LYD, at least 0), or removes it (undefined); `holderId` is kept as who set it. */
  setThreshold(accountId: string, thresholdMicro: number | undefined, holderId: string): Promise<void>;
}
