import { counter, sampledGauge } from '@gw/service-kit';
import { FreeRefusal } from './domain/free-request';
import { OutboxBacklog, SettleOutbox } from './store/settle-outbox';

/**
 * Requests refused by a limit, whoever asked (the edge or the chat product): `per_minute`,
 * `concurrency`, or `free_<refusal>` for a free request (`free_allowance_used_up`...).
 */
export const refusals = counter('quota_refusals_total', 'Requests refused, by kind: per_minute, concurrency, or free_<refusal> for a free request.', ['kind']);

/** Store operations that could not be answered: the RPC's name, or `SettleOutbox` for the forwarder's reads. */
export const storeUnavailable = counter('quota_store_unavailable_total', 'Store operations that got no answer in time (Redis unreachable or slow), by operation.', ['operation']);

/**
 * Bills delivered from the settle outbox to billing-service: `kind` is settle, free or release;
 * `outcome` is delivered, retry (failed, tried again later) or dropped (refused for good).
 */
export const outboxDeliveries = counter('quota_outbox_deliveries_total', 'Outbox deliveries to billing-service, by kind (settle, free, release) and outcome (delivered, retry, dropped).', ['kind', 'outcome']);

/** The `kind` of a free-tier refusal. */
export const freeRefusalKind = (refusal: FreeRefusal): string => `free_${refusal.replace(/-/g, '_')}`;

/** Leases renewed by the edge: `renewed`, or `unknown` (finished or lapsed already). */
export const leaseRenewals = counter('quota_lease_renewals_total', 'Lease renewals of running requests, by outcome: renewed, or unknown (the request has no lease).', ['outcome']);

/** Lapsed leases: `finished` from their last renewal, `retry` (could not be finished now) or `dropped` (refused for good). */
export const lapsedLeases = counter('quota_lapsed_leases_total', 'Requests whose lease lapsed, by outcome: finished from the last renewal, retry, or dropped.', ['outcome']);

/**
 * What waits in the settle outbox, read when scraped: bills not yet delivered to billing-service
 * (every replica reads the same shared outbox) and the age of the oldest.
 */
export function watchOutbox(outbox: SettleOutbox): void {
  // Both gauges are collected in one scrape: they share one read of the outbox.
  let reading: Promise<OutboxBacklog> | undefined;
  const read = () => (reading ??= outbox.backlog().finally(() => (reading = undefined)));
  sampledGauge('quota_settle_outbox_backlog', 'Bills in the settle outbox not yet delivered to billing-service (the shared outbox, as every replica sees it).', async () => (await read()).records);
  sampledGauge('quota_settle_outbox_oldest_age_seconds', 'Age of the oldest bill not yet delivered from the settle outbox, seconds (0 when none waits).', async () => (await read()).oldestAgeSeconds);
}
