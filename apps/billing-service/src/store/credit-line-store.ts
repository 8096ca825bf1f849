import { AppliedBill, FilingBill, CreditLineAsk, CreditLineExtension, LentLine, LineReturnRecord } from './credit-line-records';

/** Persistence of credit lines and bills. Every method is one transaction. */
export interface CreditLineStore {
  /**
   * Applies quota-service's returns not applied yet, then lends the account what its balance has
   * beyond holds and the line: all of it (`needMicro` 0) or at most `needMicro`. An account
   * without money answers zeros and gets no row. When the line did not grow by what the request
   * that asked lacked (domain/balance-alerts.ts leftUncovered), the balance-exhausted event is
   * recorded in the same transaction, once until a top-up.
   */
  extend(ask: CreditLineAsk): Promise<CreditLineExtension>;
  /**
   * Several extensions in one transaction, each as `extend` does it, in the order given (an
   * account twice is extended twice); the accounts are locked in one order first, so that calls
   * at once over the same accounts cannot deadlock. One extension per ask, in order.
   */
  extendMany(asks: CreditLineAsk[]): Promise<CreditLineExtension[]>;
  /**
   * Applies checked bills (distinct request ids; a free bill with hold, prices and charge 0) and
   * line returns, all in one transaction; one outcome per bill, in order. A bill is filed under its
   * `requestAt` (else the time in its id) unless its request id is in the ledger (repeated or
   * corrected there) or an archive (repeated, or set aside when it would correct an archived
   * estimate); one not found there is set aside when `setAside` says so or its month is archived,
   * and a 'price-mismatch' one also when it would correct its request's estimate in the ledger.
   * A balance charged to or below its low-balance threshold makes its holder event in the same
   * transaction.
   */
  applyBills(bills: FilingBill[], returns: LineReturnRecord[]): Promise<AppliedBill[]>;
  /** Up to `limit` lines lent now (line > 0) of accounts whose id sorts after `afterAccountId`, in account id order. */
  lentLines(afterAccountId: string, limit: number): Promise<LentLine[]>;
  /** The lines of these accounts, whatever their line, in account id order (an account without a balance row left out). */
  linesOf(accountIds: readonly string[]): Promise<LentLine[]>;
}
