import { HoldTerms, SettleRecord } from './settle-outbox';

/**
 * A running API request as its last lease renewal left it: the bill it would come to if it
 * ended then (quota.v1 Lease, marked estimated). A lapsed lease is finished with this bill.
XX
 * would), and `hold` when paid; `resurrected` marks one recreated from an edge's renewal after
 * the store lost it (it holds no place and no part of the credit line).
 */
export type LeaseRecord = SettleRecord & {
  hold?: HoldTerms;
  maxTokens?: number;
  resurrected?: boolean;
};

/** Whether a lease is of a request admitted by Admit (as opposed to one placed by AcquirePlace). */
export const isAdmitted = (lease: LeaseRecord): boolean => lease.hold !== undefined;

/**
 * The leases of running requests, shared by every replica. A lease lives until ended or until
 * it is not renewed within its time; then it is handed out to one replica at a time (for
 * `claimMs`, after which it is handed out again until ended) to be finished. Implementations
 * behave identically (see lease-store.contract.ts); a store that cannot answer rejects with
 * StoreUnavailableError.
 */
export interface LeaseStore {
  /** Starts the lease of a request (or replaces it), lapsing `ttlMs` from now. */
  start(lease: LeaseRecord, ttlMs: number): Promise<void>;
  /**
   * Replaces the last renewal of each lease that still exists and moves its lapse to `ttlMs`
   * from now; returns the request ids that have no lease (ended, or never started).
   */
  renew(leases: LeaseRecord[], ttlMs: number): Promise<string[]>;
  /** Ends the lease of a finished request; nothing when it has none. */
  end(requestId: string): Promise<void>;
  /** Up to `max` lapsed leases, oldest first, each kept from other claims for `claimMs`. */
  claimLapsed(max: number, claimMs: number): Promise<LeaseRecord[]>;
}
