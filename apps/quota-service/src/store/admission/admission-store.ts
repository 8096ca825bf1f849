import { LeaseRecord, LeaseRef } from '../leases/lease-store';
import { FinishedRequest, MinuteCount } from '../limits/limit-store';
import { OutboxBill, HoldTerms, Payment } from '../outbox/bill-outbox';

/** An account's credit line as quota-service keeps it: cumulative micro-LYD, each only growing but `held`. */
export interface CreditTotals {
  /** Lent by billing-service, as it last said (max-merged). */
  granted: number;
  /** Charged by finished requests. */
  charged: number;
  /** Given back to billing-service. */
  returned: number;
  /** Held by running requests now. */
  held: number;
}

/** Billing-service's cumulative totals of a line (ExtendCreditLine's answer), merged into the store's by taking the larger. */
export type LineTotals = Pick<CreditTotals, 'granted' | 'charged' | 'returned'>;

/**
 * `count` counts the request in its account's clock minute; `nocount` continues the admission of
 * a request a `count` step already counted (after a line extension, or to place a free request).
 */
export type AdmitMode = 'count' | 'nocount';

/** One atomic admission step. */
export interface AdmitStep {
  accountId: string;
  requestId: string;
  mode: AdmitMode;
  payment: Payment;
  /** Paid: the worst case to hold within the line, micro-LYD. 0 when free. */
  worstMicro: number;
  /**
   * Paid: billing-service's totals, merged first (each the larger). On a line the store lost (no
   * grant) while bills it queued wait for billing-service, judged only, not kept: the store's
   * charges since are added to billing's charged total, which lacks the waiting ones.
   */
  merge?: LineTotals;
  /** The lease started on admission (an admitted lease: `maxTokens` set). */
  lease: LeaseRecord;
  leaseTtlMs: number;
  /** The key the request came with, a term of its admission record; undefined from an older edge. */
  keyId?: string;
}

/**
 * What Admit fixed for one request id (its admission record), written by the step that admits it
 * and read back by every step that later moves its money: a finish (or a lapse) takes its
 * payment, prices and hold from here, never from the caller's restatement of them.
 */
export interface AdmissionTerms {
  payment: Payment;
  model: string;
  /** Paid: the hold and its prices. */
  hold?: HoldTerms;
  maxTokens: number;
  /** The store's clock (Redis TIME) when it was admitted, ms: the time its bill is filed under. */
  admittedAtMs: number;
  /** The key the request came with (auth-service's key id), which its bill names; undefined from an older edge. */
  keyId?: string;
}

/** The terms a finish restates, checked against its admission record before anything changes. */
export type RestatedTerms = Pick<AdmissionTerms, 'payment' | 'model' | 'hold'> & { admittedAtMs?: number };

/** Which restated term disagrees with the admission record. */
/**
 * What a refused finish disagreed on: a restated term, or `admitted` (said to be never admitted by
 * an edge whose renewals carried the admitted time, which only Admit's answer gives).
 */
export type TermsField = 'payment' | 'model' | 'hold' | 'admitted_at' | 'admitted';

/**
 * What one admission step decided, in the order the rules are checked: a request over the
 * minute's limit is `rate-limited` (nothing written); one whose id was finished already (its
 * edge gave up first) is `gone`; a paid one the line's available part cannot cover is
 * `not-covered` (only the count written); one for which every place is taken is `no-place`
 * (only the count written); else `admitted`: held, placed and leased together. A request id
 * that is admitted already is `admitted` again, counted once, with `repeatedHoldMicro` its hold
 * (undefined when it was admitted free). `admittedAtMs` is the store's time of the admission (a
 * repeat's: the first admission's, or now when its record is gone).
 */
export type AdmitResult =
  | { outcome: 'admitted'; count: MinuteCount; repeated: false; admittedAtMs: number }
  | { outcome: 'admitted'; count: MinuteCount; repeated: true; repeatedHoldMicro: number | undefined; admittedAtMs: number }
  | { outcome: 'rate-limited'; count: MinuteCount }
  | { outcome: 'gone'; count: MinuteCount }
  | { outcome: 'not-covered'; count: MinuteCount; credit: CreditTotals }
  | { outcome: 'no-place'; count: MinuteCount; placeLimit: number };

/** The store step that ends an admitted request (its FinishReport, checked and charged: request-finisher.ts finishStepOf). */
export interface FinishStep {
  accountId: string;
  requestId: string;
  /** False when the edge never had the Admit answer: whatever the admission took is given back, no bill. */
  admitted: boolean;
  payment: Payment;
  /** Prompt plus completion tokens, counted as usage. */
  tokens: number;
  /** True when the tokens are an estimate (no usage reported); false for the provider's. */
  usageEstimated: boolean;
  /** True when the reaper finishes the request from its lapsed lease (an estimate a real bill may correct). */
  lapsed: boolean;
  /** Paid: the charge added to the line's `charged`, micro-LYD. */
  chargeMicro: number;
  /** The bill queued for billing-service; undefined when there is nothing to bill. */
  bill: OutboxBill | undefined;
  /**
   * The terms the caller restated (its payment, model, hold, admitted time): when the store has
   * the request's admission record and any of them disagrees, the finish is refused, nothing
   * changed. A bill without its admitted time gets the record's, and one without a key the record's key.
   */
  restated?: RestatedTerms;
}

/** What an admitted finish did: a real bill correcting an estimate may leave a shortfall, the part of its correction the line could not carry (micro-LYD, else 0). */
export type FinishStepDone = FinishedRequest & { shortfallMicro: number; refused?: TermsField };

/** What giving a line back did, micro-LYD. */
export interface LineReturn {
  /** Given back now (0 when nothing was unheld, or the line was not idle). */
  returnedMicro: number;
  /** Still held by running requests. */
  heldMicro: number;
  /** The account's cumulative total given back, after this call. */
  returnedTotalMicro: number;
}

/** What a renewal of an unknown lease came to. */
export type ResurrectOutcome = 'resurrected' | 'finished' | 'exists';

/**
 * Where the bill of an admitted request stands (for final leases): `pending` while its
 * finish's bill waits in the outbox, `applied` once billing-service applied it (or the finish had
 * nothing to bill), `unfinished` when the store has no trace of its finish (never finished, or
 * lost with the store: the final lease's renewal finishes it again).
 */
export type BillState = 'pending' | 'applied' | 'unfinished';

/**
 * The admission of API requests (quota.v1 Admit) and their end: counts, places and leases
 * shared with LimitStore and LeaseStore, the credit line of each account, and the outbox. Each
 * method is one atomic step on the account's state (one Redis script); implementations behave
 * identically (test/store-contracts/admission-store.contract.ts); a store that cannot answer rejects with
 * StoreUnavailableError.
 */
export interface AdmissionStore {
  /** Counts (mode `count`), checks, holds, places and leases one request: see AdmitResult. */
  admit(step: AdmitStep): Promise<AdmitResult>;
  /**
   * The terms Admit fixed for a request (AdmissionTerms), or undefined when the store has none
   * (never admitted by this release, finished, or lost with the store).
   */
  terms(request: LeaseRef): Promise<AdmissionTerms | undefined>;
  /**
   * Refused (`refused` set, nothing changed) when its restated terms disagree with the admission
   * record. Ends an admitted request once per request id (a repeat changes nothing): its hold leaves
   * `held` and its charge joins `charged`, its place is freed, its usage counted, a free
   * reservation settled with the real tokens, its lease ended and its bill queued. When not
   * `admitted`, all it took is given back and the id is remembered, so that an admission of it
   * arriving later is `gone`. The one repeat that does something: usage the provider reported for
   * a paid request the reaper finished from an estimate queues the real bill (billing-service
   * corrects the row) and adds to `charged` what the real charge has beyond the estimate.
   */
  finish(finish: FinishStep): Promise<FinishStepDone>;
  /**
   * Gives back the unheld part of the account's line (adds it to `returned` and queues the new
   * cumulative total for billing-service). With `idleMs`, only when the account had no paid
   * admission nor line grant for that long. The account leaves the idle index once nothing is held.
   */
  returnLine(accountId: string, idleMs?: number): Promise<LineReturn>;
  /** Up to `max` accounts of the idle index whose last admission or grant is at least `idleMs` old. */
  idleLines(idleMs: number, max: number): Promise<string[]>;
  /**
   * Recreates the lease of an admitted request that the store lost (its id neither leased nor
   * finished), from its renewal: it takes no place; a paid one's hold is held in the line again
   * (unless the store still has it), since the request will be charged from the money
   * billing-service lent, and the account counts as active.
   */
  resurrect(lease: LeaseRecord, ttlMs: number): Promise<ResurrectOutcome>;
  /**
   * Adopts a line billing-service has lent (its totals) when the store does not know it whole
   * (billing's granted total beyond the store's, or none in the store): totals merged by taking
   * the larger, the account active now unless it is already, so that the idle timer gives it back
   * once idle. Not while a bill of the account waits for billing-service (a later look adopts
   * it). True when adopted.
   */
  adoptLine(accountId: string, totals: LineTotals): Promise<boolean>;
  /** Where the bill of each request stands (see BillState), in their order: many in one step per shard. */
  billStates(requests: readonly LeaseRef[]): Promise<BillState[]>;
  /** The account's line as the store has it. */
  credit(accountId: string): Promise<CreditTotals>;
}
