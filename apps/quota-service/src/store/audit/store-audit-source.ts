import { CreditTotals } from '../admission/admission-store';

/** What the audit reads of one account in the store, in one look. */
export interface AccountFacts {
  accountId: string;
  credit: CreditTotals;
  /** The hold of each running paid request, micro-LYD. */
  holds: ReadonlyMap<string, number>;
  /** The grant time (ms) of each place held. */
  places: ReadonlyMap<string, number>;
  /** Which of the requests above have a lease. */
  leased: ReadonlySet<string>;
  /**
   * False when the store has no granted total for the account: it lost the line (Redis came back
   * empty, or failed over) and rebuilds it from re-sent finishes and renewals until it adopts
   * billing-service's totals (ADOPT_LINE, or an admission's line extension).
   */
  lineKnown: boolean;
  /** The account's bills queued and not yet applied by billing-service. */
  billsWaiting: number;
}

/** A lease the reaper should have finished by now. */
export interface OverdueLease {
  requestId: string;
  accountId: string;
  lapsedAtMs: number;
}

/**
 * What the audit of the store reads (domain/store-audit.ts judges it); reads only.
 */
export interface StoreAuditSource {
  /** The ids of every account with a credit line or places in the store, `batch` at a time, each once. */
  accountIds(batch: number): AsyncIterable<string[]>;
  /** What the store holds of these accounts, each read in one look. */
  facts(accountIds: readonly string[]): Promise<AccountFacts[]>;
  /** Leases that lapsed before `beforeMs`, at most `max`. */
  overdueLeases(beforeMs: number, max: number): Promise<OverdueLease[]>;
  /** Tokens the free pool has used on the UTC day of `nowMs`, reservations included. */
  freePoolUsed(nowMs: number): Promise<number>;
}
