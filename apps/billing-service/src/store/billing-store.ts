import { AuditActor } from '@gw/service-kit';
import { BalanceRecord, PriceChange, PriceRecord, PriceTable } from './billing-records';
import { CreditLineRecord } from './credit-line-records';

/** Persistence of balances and prices. Every method is atomic. */
export interface BillingStore {
  /**
   * Inserts or replaces a price, giving the price table a new version announced to every replica
   * (PgPriceFeed), and records it in the audit trail, made `by`, in the same transaction.
   */
  setPrice(price: PriceRecord, by: AuditActor): Promise<PriceChange>;
  /** Every price and the table's version, at one moment. */
  priceTable(): Promise<PriceTable>;
  /** The account's money, or undefined when it never had any. */
  getBalance(accountId: string): Promise<BalanceRecord | undefined>;
  /** The account's money with its credit line, or undefined when it never had any. */
  getCreditLine(accountId: string): Promise<CreditLineRecord | undefined>;
  /**
   * Adds the change's amount (may be negative) to the balance, creating the row, and writes its
   * entry, at most once per idempotency key; a change made is recorded in the audit trail in the
   * same transaction, with its holder events (a top-up credited, the balance fallen below its
   * low-balance threshold: PgBalanceEvents). Refused (and nothing changed) when the balance would
   * drop below what is held and lent as the credit line, or rise past 2^53 - 1 micro-LYD.
   */
  addBalance(change: BalanceChange): Promise<BalanceChangeOutcome>;
}

/** An operator's change of a balance. */
export interface BalanceChange {
  accountId: string;
  amountMicro: number;
  reason: string;
  /** Who asked: the verified identity of the caller. */
  madeBy: string;
  idempotencyKey: string | undefined;
}

/**
 * applied: made now; repeated: made before under the same key (the balance it left); refused: not
 * made; key-used: the key was used for another account or amount.
 */
export type BalanceChangeOutcome = { kind: 'applied' | 'repeated'; balanceMicro: number } | { kind: 'refused' | 'key-used' };
