import type { ItemResult } from '@gw/service-kit';

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
  extend(ask: LineAsk): Promise<LineExtension>;
}

/** One extension asked of billing-service (billing.v1 ExtendCreditLineRequest). */
export interface LineAsk {
  accountId: string;
  /** quota-service's cumulative total of line given back. */
  returnedTotalMicro: number;
  /** 0: lend all the unheld balance; else at most this much. */
  needMicro: number;
  /**
   * The granted total here when asking, and what the request that asks lacks in the line: from
   * them billing-service tells whether the line it lends covers the request, and tells the
   * holders once when the balance no longer does.
   */
  grantedTotalMicro: number;
  uncoveredMicro: number;
}

/** billing-service as the batched extensions see it. */
export interface BatchLender {
  /**
   * Several extensions in one call (billing.v1 ExtendCreditLines, at most 256), served in order:
   * each its own answer or error, and a failed call the error of each.
   */
  extendMany(asks: LineAsk[]): Promise<ItemResult<LineExtension>[]>;
}
