import { counter, gauge, histogram, sampledGauge } from '@gw/service-kit';
import { FreeRefusal } from './domain/free-request';
import { OutboxBacklog, BillOutbox } from './store/outbox/bill-outbox';

/**
 * Requests refused by a limit, whoever asked (the edge or the chat product): `per_minute`,
 * `concurrency`, or `free_<refusal>` for a free request (`free_allowance_used_up`...).
 */
export const refusals = counter(
  'quota_refusals_total',
  'Requests refused, by kind: per_minute, concurrency, or free_<refusal> for a free request.',
  ['kind'],
);

/** Store operations that could not be answered: the RPC's name, or `SettleOutbox` (the metric label kept from its old name) for the forwarder's reads. */
export const storeUnavailable = counter(
  'quota_store_unavailable_total',
  'Store operations that got no answer in time (Redis unreachable or slow), by operation.',
  ['operation'],
);

/**
 * Records delivered from the settle outbox to billing-service: `kind` is bill or return (ApplyBills),
 * or settle, free or release (the older path); `outcome` is delivered, set-aside (billing-service
 * kept the bill for the operator instead of filing it: not sent again), retry (failed, tried
 * again later) or dropped (refused for good).
 */
export const outboxDeliveries = counter(
  'quota_outbox_deliveries_total',
  'Outbox deliveries to billing-service, by kind (bill, return; settle, free, release) and outcome (delivered, set-aside, retry, dropped).',
  ['kind', 'outcome'],
);

/** Admit's answers: paid, free, rate_limited, no_place, not_covered, or gone (its edge had given up on it). */
export const admits = counter('quota_admits_total', 'Admit answers, by outcome: paid, free, rate_limited, no_place, not_covered, gone.', [
  'outcome',
]);

/**
 * Credit lines extended by billing-service when an Admit found its line short: `grown` (more was
 * lent), `unchanged` (nothing more to lend) or `failed` (billing-service did not answer: UNAVAILABLE).
 */
export const lineExtensions = counter(
  'quota_credit_line_extensions_total',
  'Credit line extensions asked of billing-service, by outcome: grown, unchanged, failed.',
  ['outcome'],
);

/**
 * Lines per call that extends credit lines (billing.v1 ExtendCreditLines): 1 when the call went at
 * once, more when extensions waited for the call before it; its count is the number of calls.
 */
export const lineExtensionBatchSize = histogram(
  'quota_credit_line_batch_size',
  'Credit line extensions sent to billing-service per ExtendCreditLines call (the count is the number of calls).',
  [],
  [1, 2, 4, 8, 16, 32, 64, 128, 256],
);

/** Lines given back to billing-service, by reason: `idle` (the timer) or `operator` (ReturnCreditLine). */
export const lineReturns = counter(
  'quota_credit_line_returns_total',
  'Credit lines given back to billing-service, by reason: idle, operator.',
  ['reason'],
);

/** micro-LYD given back to billing-service, by reason. */
export const lineReturnedMicro = counter(
  'quota_credit_line_returned_micro_lyd_total',
  'micro-LYD of credit lines given back to billing-service, by reason: idle, operator.',
  ['reason'],
);

/** 1 while this replica holds billing-service's price table (its watch is up), else 0: paid Admits are refused. */
export const priceWatchUp = gauge(
  'quota_price_watch_up',
  'Whether this replica holds the price table from billing-service (1) or not (0: paid admissions answer UNAVAILABLE).',
);

/** The `kind` of a free-tier refusal. */
export const freeRefusalKind = (refusal: FreeRefusal): string => `free_${refusal.replace(/-/g, '_')}`;

/** Leases renewed by the edge: `renewed`, `unknown` (finished or lapsed already) or `resurrected` (the store had lost it). */
export const leaseRenewals = counter(
  'quota_lease_renewals_total',
  'Lease renewals, by outcome: renewed, unknown (the request has no lease), resurrected (recreated after the store lost it); of finished requests (final): final_pending (bill not yet applied), final_applied, final_refinished (finished again: the store had lost its finish).',
  ['outcome'],
);

/**
 * Lapsed leases: `held` (marked lapsed, the request keeping its hold and place through the grace),
 * `renewed` (renewed since the claim), `gone` (ended since), `finished` from their last renewal,
 * `retry` (could not be finished now) or `dropped` (refused for good).
 */
export const lapsedLeases = counter(
  'quota_lapsed_leases_total',
  'Requests whose lease lapsed, by outcome: held (kept through the grace), renewed (its edge came back first), gone, finished from the last renewal, retry, or dropped.',
  ['outcome'],
);

/**
 * Finishes refused because they disagree with the terms Admit fixed for their request: `field` is
 * payment, model, hold (amount or prices) or admitted_at. Each is a caller restating terms it was not given.
 */
export const finishTermsRefused = counter(
  'quota_finish_terms_refused_total',
  'FinishRequests refused for disagreeing with their admission, by field: payment, model, hold, admitted_at.',
  ['field'],
);

/**
 * The part of a late real bill's correction of a lapse estimate that the account's line could not
 * carry, micro-LYD: delivered and not charged within the line (billing-service records it as the
 * ledger's shortfall).
 */
export const lapseShortfallMicro = counter(
  'quota_lapse_shortfall_micro_lyd_total',
  "Micro-LYD of late real bills' corrections of lapse estimates that the credit line could not carry.",
);

/**
 * What waits in the settle outbox, read when scraped: bills not yet delivered to billing-service
 * (every replica reads the same shared outbox) and the age of the oldest.
 */
export function watchOutbox(outbox: BillOutbox): void {
  // Both gauges are collected in one scrape: they share one read of the outbox.
  let reading: Promise<OutboxBacklog> | undefined;
  const read = () => (reading ??= outbox.backlog().finally(() => (reading = undefined)));
  sampledGauge(
    'quota_settle_outbox_backlog',
    'Bills in the settle outbox not yet delivered to billing-service (the shared outbox, as every replica sees it).',
    async () => (await read()).records,
  );
  sampledGauge(
    'quota_settle_outbox_oldest_age_seconds',
    'Age of the oldest bill not yet delivered from the settle outbox, seconds (0 when none waits).',
    async () => (await read()).oldestAgeSeconds,
  );
}
