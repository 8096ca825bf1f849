import { HoldTerms, RequestUsage } from '../outbox/bill-outbox';

/**
 * A running API request as its last lease renewal left it: the bill it would come to if it
 * ended then (quota.v1 Lease, marked estimated). A lapsed lease is finished with this bill.
 * A paid request admitted by Admit has its `hold` (the edge renews its lease with it), and any
 * admitted request its `maxTokens` as Admit started the lease. Each renewal replaces the record
 * whole, so nothing the store alone knows is kept in it: what a request holds of its account's
 * line is kept beside the line (AdmissionStore), so that a lease recreated after the store lost
 * it holds nothing there.
 */
export type LeaseRecord = RequestUsage & {
  hold?: HoldTerms;
  maxTokens?: number;
  /** Admit's time of the request (AdmitResponse.admitted_at_ms), as the edge carries it: used when the store lost its admission record. */
  admittedAtMs?: number;
  /**
   * The store only (LeaseStore.holdLapsed, never a renewal's): when the lease lapsed, ms. Its
   * request keeps its hold and place through the grace; a renewal (its edge came back) clears it.
   */
  lapsedAtMs?: number;
  /**
   * A renewal only (quota.v1 Lease.final, never stored): the request's FinishRequest landed and
   * this is its final bill, renewed until that bill is applied at billing-service.
   */
  final?: boolean;
};

/** What LeaseStore.holdLapsed did. */
export type LapseHold = 'held' | 'renewed' | 'gone';

/** Which lease: its request, and its account (whose keys a store may keep it beside). */
export type LeaseRef = Pick<LeaseRecord, 'accountId' | 'requestId'>;

/**
 * Whether a lease is of a paid request admitted by Admit, with its hold (charged and given back
 * when it is finished, recreated with the lease when the store lost it). A free request admitted
 * by Admit is told by its max_tokens where that matters (RequestFinisher.finishLapsed).
 */
export const isAdmitted = (lease: LeaseRecord): boolean => lease.hold !== undefined;

/**
 * The leases of running requests, shared by every replica. A lease lives until ended or until
 * it is not renewed within its time; then it is handed out to one replica at a time (for
 * `claimMs`, after which it is handed out again until ended) to be finished. Implementations
 * behave identically (see test/store-contracts/lease-store.contract.ts); a store that cannot answer rejects with
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
  end(lease: LeaseRef): Promise<void>;
  /** Up to `max` lapsed leases, oldest first, each kept from other claims for `claimMs`. */
  claimLapsed(max: number, claimMs: number): Promise<LeaseRecord[]>;
  /**
   * Marks a claimed lapsed lease lapsed (`lapsedAtMs` now) and lets it lapse again `graceMs` from
   * now, when it is claimed again to be finished, unless a renewal or its finish came first:
   * `held`; `renewed` when the lease is no longer the one claimed (a renewal came meanwhile: left
   * as it is); `gone` when it has ended.
   */
  holdLapsed(lease: LeaseRecord, graceMs: number): Promise<LapseHold>;
}
