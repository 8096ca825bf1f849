import { counter } from '@gw/service-kit';
import { LedgerRecord } from './store/billing-records';

/**
 * Settle and RecordFree calls, by `payment` (paid, free) and `outcome`: `billed` (this call
 * wrote the ledger row), `repeated` (already billed: nothing changed) or `refused` (no hold to
 * settle, or a request id that is not this payment's or account's).
 */
const settles = counter('billing_settles_total', 'Settle and RecordFree calls, by payment (paid, free) and outcome (billed, repeated, refused).', ['payment', 'outcome']);

/** Micro-LYD charged to balances by settles, each request once. */
const chargedMicroLyd = counter('billing_charged_micro_lyd_total', 'Micro-LYD charged to API balances by settles (each request once).');

/** Requests billed with an estimate of their usage (the reply broke off before reporting it), each once. */
const estimatedSettles = counter('billing_estimated_settles_total', 'Requests billed with usage_estimated, by payment (paid, free).', ['payment']);

/** Counts a ledger row just written: the settle, its charge, and whether its usage was estimated. */
export function countBilled(entry: LedgerRecord): void {
  const payment = entry.paid ? 'paid' : 'free';
  settles.inc({ payment, outcome: 'billed' });
  if (entry.paid) chargedMicroLyd.inc(entry.amountMicro);
  if (entry.usageEstimated) estimatedSettles.inc({ payment });
}

/** Counts a settle that billed nothing: already billed, or refused. */
export function countNotBilled(payment: 'paid' | 'free', outcome: 'repeated' | 'refused'): void {
  settles.inc({ payment, outcome });
}
