import { LedgerBill } from '../store/credit-line-records';

const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** How far from billing-service's clock a bill may be filed; farther, it is set aside for the operator. */
export interface FilingWindow {
  /** A bill admitted longer ago than this is too late to file (its month may be archived). */
  lateWindowMs: number;
  /** A bill admitted further ahead of the clock than this is refused as well (a clock that is off). */
  aheadMs: number;
}

/** The Unix ms inside a UUIDv7 billing id (as billing.uuid7_time reads it); undefined for an id of another form. */
export function uuid7Ms(requestId: string): number | undefined {
  if (!UUID7.test(requestId)) return undefined;
  return parseInt(requestId.slice(0, 8) + requestId.slice(9, 13), 16);
}

/**
 * When the bill's request was admitted: quota-service's store clock at Admit, or from an older
 * quota-service the time inside a UUIDv7 request id; undefined for an older id of another form
 * (billing.ledger_time gives it the time of its first bill).
 */
export function admittedMs(bill: Pick<LedgerBill, 'requestId' | 'admittedAtMs'>): number | undefined {
  return bill.admittedAtMs ?? uuid7Ms(bill.requestId);
}

/** Why the clock refuses to file a bill admitted at `admitted`, or undefined when it may be filed. */
export function clockRefusal(admitted: number | undefined, now: number, window: FilingWindow): 'too-late' | 'ahead' | undefined {
  if (admitted === undefined) return undefined;
  if (admitted < now - window.lateWindowMs) return 'too-late';
  if (admitted > now + window.aheadMs) return 'ahead';
  return undefined;
}
