import { BalanceRecord, PriceRecord } from '../../store/billing-records';
import { FreeUsage, HoldRecord, LedgerRecord, NewHold, SettleUsage } from './hold-records';

/**
 * What placing a hold came to. `balance` is always the account's balance and what its OTHER
 * requests hold (this request's own hold not included), the credit line included: quota-service
 * holds running requests in it. Both 0 for an account without money.
 */
export type HoldOutcome =
  | { kind: 'held'; balance: BalanceRecord }
  | { kind: 'refused'; balance: BalanceRecord }
  /** The request id already has an open hold: nothing changed. */
  | { kind: 'already-held'; hold: HoldRecord; balance: BalanceRecord }
  /** The request id is already settled: nothing changed. */
  | { kind: 'already-settled'; entry: LedgerRecord; balance: BalanceRecord }
  /** The hold was priced at prices the model no longer has: nothing changed. */
  | { kind: 'price-changed' };

/** What recording a free request came to: the ledger row (the first one, for a repeat). */
export type FreeOutcome =
  | { kind: 'recorded'; entry: LedgerRecord }
  | { kind: 'already-recorded'; entry: LedgerRecord }
  /** The request id has an open paid hold: nothing written. */
  | { kind: 'has-hold' };

/** What settling came to (the first settle's ledger row, for a repeat) and the balance now. */
export interface SettleOutcome {
  entry: LedgerRecord;
  balanceMicro: number;
  /** Whether the request id was settled before: this call charged nothing. */
  repeated: boolean;
}

/** Persistence of the older release's holds and of the ledger rows it writes. Every method is atomic. */
export interface HoldStore {
  getPrice(model: string): Promise<PriceRecord | undefined>;
  /** Places the hold if the available balance covers it and its prices are the model's, once per request id. */
  placeHold(hold: NewHold): Promise<HoldOutcome>;
  /**
   * Exactly once per request id: takes the hold, charges `chargeFor(hold)` (at most the hold),
   * writes the ledger row and releases the hold. A settled id returns its first outcome;
   * undefined when the id has neither a hold nor a ledger row.
   */
  settle(usage: SettleUsage, chargeFor: (hold: HoldRecord) => number): Promise<SettleOutcome | undefined>;
  /** Writes the ledger row of a free request (amount 0, paid=false), once per request id. */
  recordFree(usage: FreeUsage): Promise<FreeOutcome>;
  /** Deletes one request's hold and gives its amount back; false when it had none. */
  releaseHold(requestId: string): Promise<boolean>;
  /** Marks the holds of these request ids as renewed now (running requests); returns how many had one. */
  renewHolds(requestIds: string[]): Promise<number>;
  /** Releases holds neither placed nor renewed within the last `ttlSeconds`; returns how many. */
  releaseHoldsOlderThan(ttlSeconds: number, limit: number): Promise<number>;
}
