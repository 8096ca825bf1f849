/** billing-service's answer to a line extension (billing.v1 ExtendCreditLine), micro-LYD; totals are cumulative. */
export interface LineExtension {
  /** Everything ever lent for the account. */
  grantedTotalMicro: number;
  /** The balance as `ctl account show` prints it. */
  balanceMicro: number;
  /** Charges billing-service applied against the line so far. */
  chargedTotalMicro: number;
  /** Returns billing-service applied so far. */
  returnedTotalMicro: number;
  /** Held outside the line by the older path's holds (billing.v1 Authorize). */
  heldOutsideMicro: number;
}

/** billing-service as the credit lines see it. */
export interface CreditLender {
  /**
   * Applies what quota-service gave back (`returnedTotalMicro`, cumulative) and lends the
   * account's unheld balance: all of it (`needMicro` 0) or at most `needMicro`.
   */
  extend(accountId: string, returnedTotalMicro: number, needMicro: number): Promise<LineExtension>;
}
