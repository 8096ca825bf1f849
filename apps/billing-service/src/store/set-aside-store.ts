import { AuditActor } from '@gw/service-kit';
import { AppliedBill, LedgerBill, SetAsideReason } from './credit-line-records';

/** A bill set aside instead of filed, waiting for the operator. */
export interface SetAsideRecord {
  /** The bill as kept; `admittedAtMs` is the time it was to be filed under. */
  bill: LedgerBill & { admittedAtMs: number };
  reason: SetAsideReason;
  setAsideAt: Date;
  deliveries: number;
  /** Where the page after this bill starts. */
  cursor: SetAsideCursor;
}

/** Where a page of set-aside bills starts: after this one, in (setAsideAt, requestId) order. */
export interface SetAsideCursor {
  setAsideAt: string;
  requestId: string;
}

/**
 * What an operator's decision on a set-aside bill came to: filed (with the month and what
 * apply_bills did), written off (the charge not taken), or refused: no such bill, one decided
 * before, or one whose request's estimate is archived (filing would charge the request twice).
 */
export type SetAsideDecision =
  | { kind: 'filed'; month: string; applied: AppliedBill }
  | { kind: 'written-off'; chargeMicro: number }
  | { kind: 'not-found' }
  | { kind: 'decided'; decision: 'filed' | 'written-off' }
  | { kind: 'archived-estimate' };

/** The set-aside bills: listed, filed or written off, each decision once and kept with the bill. */
export interface SetAsideStore {
  /** Up to `limit` bills not yet decided, oldest first, after `cursor`. */
  listOpen(cursor: SetAsideCursor | undefined, limit: number): Promise<SetAsideRecord[]>;
  /**
   * In one transaction: marks the bill filed and applies it under the month running now, as
   * apply_bills applies a bill; rolled back (and refused) unless that wrote or corrected a row.
   */
  file(requestId: string, by: AuditActor): Promise<SetAsideDecision>;
  /** Marks the bill written off: never charged. */
  writeOff(requestId: string, by: AuditActor): Promise<SetAsideDecision>;
}
