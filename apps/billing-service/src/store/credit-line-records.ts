/**
 * An account's money as its credit line sees it, micro-LYD: the balance, what legacy Authorize
 * holds take of it, the line lent to quota-service, and the line's cumulative totals
 * (line = granted - charged - returned).
 */
export interface CreditLineRecord {
  balanceMicro: number;
  heldMicro: number;
  lineMicro: number;
  grantedTotalMicro: number;
  chargedTotalMicro: number;
  returnedTotalMicro: number;
}

/** A line lent now (line > 0) and its cumulative totals, micro-LYD. */
export interface LentLine {
  accountId: string;
  grantedTotalMicro: number;
  chargedTotalMicro: number;
  returnedTotalMicro: number;
}

/** One extension asked for (ExtendCreditLine's fields): quota-service's returned total, and the need (0: all). */
export interface CreditLineAsk {
  accountId: string;
  returnedTotalMicro: number;
  needMicro: number;
  /** quota-service's granted total when it asked; undefined from an older quota-service. */
  grantedTotalMicro?: number;
  /** What the request that asked lacked in quota-service's line; undefined from an older quota-service. */
  uncoveredMicro?: number;
}

/** What ExtendCreditLine did: what it lent now, and the account's money after it. */
export interface CreditLineExtension {
  lentNowMicro: number;
  grantedTotalMicro: number;
  balanceMicro: number;
  chargedTotalMicro: number;
  returnedTotalMicro: number;
  heldMicro: number;
}

/** Why a billed request ended ('' when not recorded: billed before end reasons were kept, or by an older caller). */
export type EndReason = '' | 'complete' | 'caller-left' | 'provider-broke-off' | 'recovered';

/**
 * One bill of a request on its way to the ledger, as quota-service delivers it (billing.v1.Bill;
 * amounts micro-LYD, prices per million tokens). Not quota-service's outbox record of the same bill.
 */
export interface LedgerBill {
  requestId: string;
  accountId: string;
  model: string;
  paid: boolean;
  promptTokens: number;
  completionTokens: number;
  usageEstimated: boolean;
  heldMicro: number;
  inputMicroPerMillion: number;
  outputMicroPerMillion: number;
  chargeMicro: number;
  endReason: EndReason;
  /** When quota-service admitted the request, Unix ms of its store's clock; undefined from an older quota-service. */
  admittedAtMs?: number;
  /** The API key the request was made with (fixed at Admit); undefined from an older edge or quota-service. */
  keyId?: string;
}

/** Why a bill was set aside instead of filed. */
export type SetAsideReason = 'too-late' | 'ahead' | 'month-archived' | 'archived-estimate' | 'price-mismatch';

/** A checked bill on its way to the ledger: the time it is filed under, and the clock's refusal if any. */
export interface FilingBill extends LedgerBill {
  /** The month's time: the admitted time, or undefined for the time inside the request id. */
  requestAt: Date | undefined;
  /**
   * Set aside for this reason (billing-service's clock refused it, or its prices were not in force
   * when it was admitted) unless the request id is in the ledger or an archive; a price-mismatch
   * one is set aside as well when it would correct its request's estimate in the ledger.
   */
  setAside: 'too-late' | 'ahead' | 'price-mismatch' | undefined;
}

/** quota-service's cumulative total of line given back for one account. */
export interface LineReturnRecord {
  accountId: string;
  returnedTotalMicro: number;
}

/**
 * What applying one bill did: its ledger row `written`, an estimated row `corrected`,
 * `repeated` (in the ledger or an archived month before: nothing changed) or `set-aside` (not
 * filed, kept for the operator: nothing charged). `chargedMicro` is what this call took from the
 * balance for it (negative when an estimate corrected down gave money back); `shortfallMicro`
 * what its row records as not paid.
 */
export interface AppliedBill {
  outcome: 'written' | 'corrected' | 'repeated' | 'set-aside';
  /** Why it was set aside (outcome 'set-aside'). */
  setAsideReason?: SetAsideReason;
  chargedMicro: number;
  shortfallMicro: number;
}
