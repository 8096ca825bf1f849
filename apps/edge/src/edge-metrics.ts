import { counter, gauge, histogram, LATENCY_BUCKETS } from '@gw/service-kit';

/** Whole requests and provider calls last up to minutes (long streams), beyond LATENCY_BUCKETS. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Every request, once it is over: `code` is the error code of an error reply, else `ok` (see request-log.ts). */
export const requestsTotal = counter(
  'edge_requests_total',
  'Requests answered by the edge, by route, status and code (the error code, or ok).',
  ['route', 'status', 'code'],
);

/**
 * Chat requests once over, by model and code (as edge_requests_total): `model` is the catalog's
 * model the request named, or `none` when it was refused before its model was checked, so a
 * caller's text never becomes a label.
 */
export const chatRequestsTotal = counter(
  'edge_chat_requests_total',
  'Chat completion requests answered, by model (none before the model is checked) and code (the error code, or ok).',
  ['model', 'code'],
);

/** Arrival to the end of the caller's reply. */
export const requestSeconds = histogram(
  'edge_request_duration_seconds',
  'Time from a request arriving to the end of its reply to the caller, by route.',
  ['route'],
  REQUEST_BUCKETS,
);

/** Provider call to its response headers; `model` is one of the catalog's (checked before the call). */
export const providerTtfbSeconds = histogram(
  'edge_provider_ttfb_seconds',
  'Time from calling the provider to its response headers, by whether the reply streams and by model.',
  ['stream', 'model'],
  REQUEST_BUCKETS,
);

/** Provider call to the last byte of its reply (read to the end even when the caller left). */
export const providerSeconds = histogram(
  'edge_provider_duration_seconds',
  'Time from calling the provider to the end of its reply, by whether the reply streams.',
  ['stream'],
  REQUEST_BUCKETS,
);

/** The gateway's own limit refusals: `kind` is rate_limit_error, concurrency_limit or the 402 code. */
export const limitRefusals = counter(
  'edge_limit_refusals_total',
  "Requests refused by the gateway's limits: rate_limit_error, concurrency_limit, or the code of a 402.",
  ['kind'],
);

/**
 * Per-minute 429s the edge gave itself, without asking quota-service, to accounts it refused
 * earlier in the same clock minute (MinuteRefusals); each is also in edge_limit_refusals_total.
 */
export const localRateRefusals = counter(
  'edge_local_rate_refusals_total',
  'Per-minute 429s (rate_limit_error) the edge gave without asking quota-service, the account being refused earlier in the same clock minute.',
);

/** Event streams whose headers are out and whose end is not. */
export const openStreams = gauge('edge_open_streams', 'Event streams open to callers now.');

/** FinishRequest calls that ended: `ok`, or `dropped` when quota-service refused the request for good (not retried). */
export const finishesSent = counter(
  'edge_settlements_total',
  'Settlements (FinishRequest calls) of finished requests, by outcome: ok, or dropped (refused for good).',
  ['outcome'],
);

/** FinishRequest calls that failed and are tried again. */
export const finishRetries = counter(
  'edge_settlement_retries_total',
  'FinishRequest calls that failed for a reason that may pass, and are retried.',
);

/** Requests finished with an estimate of their usage (the reply broke off before reporting it). */
export const estimatedCharges = counter(
  'edge_estimated_charges_total',
  'Requests settled with usage_estimated (no usage reported), by payment: paid or free.',
  ['payment'],
);

/** Every gRPC call the edge makes, timed from its start to its answer or error. */
export const grpcClientSeconds = histogram(
  'edge_grpc_client_seconds',
  "Time of the edge's gRPC calls, by method and status code.",
  ['method', 'code'],
  LATENCY_BUCKETS,
);

/** Lease renewals of running requests: `renewed`, `unknown` to quota-service (let go), or `failed` (tried again). */
export const leaseRenewals = counter(
  'edge_lease_renewals_total',
  'Lease renewals, by outcome: renewed, applied (the final bill of a finished request applied: no longer renewed), unknown (a running request quota-service no longer knows: no longer renewed) or failed (retried).',
  ['outcome'],
);

/** Final bills of finished requests the edge renews until quota-service answers them applied (LeaseKeeper). */
export const finalBillsKept = gauge(
  'edge_final_bills_kept',
  'Final bills of finished requests the edge keeps renewing until quota-service answers them applied, out of EDGE_FINAL_BILLS_MAX.',
);

/** EDGE_FINAL_BILLS_MAX, so that an alert can say how near the bound edge_final_bills_kept is. */
export const finalBillsMax = gauge('edge_final_bills_max', 'The final bills the edge keeps at most (EDGE_FINAL_BILLS_MAX).');

/** Final bills let go unapplied to make room at EDGE_FINAL_BILLS_MAX, each logged at error with what it bills. */
export const finalBillsDropped = counter(
  'edge_final_bills_dropped_total',
  'Final bills the edge let go before seeing them applied, the oldest, to keep at most EDGE_FINAL_BILLS_MAX (each logged at error).',
);

/** Connections closed as soon as they were accepted: the public server had its most open (EDGE_MAX_CONNECTIONS). */
export const connectionsRefused = counter(
  'edge_connections_refused_total',
  'Connections closed at once because the edge had EDGE_MAX_CONNECTIONS open.',
);

/** Bytes of request bodies being read now, taken from the body budget (BODY_BUDGET_BYTES). */
export const bodyBytesReading = gauge('edge_body_bytes_reading', 'Bytes of request bodies being read now, out of BODY_BUDGET_BYTES.');

/** Client connections open now, out of EDGE_MAX_CONNECTIONS. */
export const openConnections = gauge(
  'edge_open_connections',
  'Client connections open to the public server now, out of EDGE_MAX_CONNECTIONS.',
);

/** 1 while auth-service's change stream is live and the key cache may answer; 0 while every key is asked about. */
export const keyCacheTrusted = gauge(
  'edge_key_cache_trusted',
  "1 while the edge holds auth-service's change stream and answers from its key cache, else 0.",
);

/** Times the key cache was emptied, its change stream having ended, failed or fallen silent while trusted. */
export const keyCacheFlushes = counter(
  'edge_key_cache_flushes_total',
  "Times the edge emptied its key cache because auth-service's change stream ended, failed or fell silent.",
);

/**
 * Moves to a new change stream (IdentityWatch), by outcome: `done` (the cache kept), `unanswered`
 * (no answer to the sync, as from an earlier auth-service), `candidate_lost` or
 * `candidate_silent` (the new stream failed first), `primary_lost` (the old stream was cut
 * first: the cache emptied, the new stream followed).
 */
export const keyCacheHandovers = counter(
  'edge_key_cache_handovers_total',
  'Moves of the key cache to a new change stream of auth-service, by outcome: done (cache kept), unanswered, candidate_lost, candidate_silent, primary_lost (cache emptied).',
  ['outcome'],
);

/** Change streams held: 1, 2 while moving to a new one, 0 while none is open. */
export const keyCacheStreams = gauge(
  'edge_key_cache_streams',
  'auth-service change streams the edge holds: 1, or 2 while it moves to a new one (0 while none is open).',
);

const BREAKER_STATES = ['closed', 'half-open', 'open'] as const;
const breakerState = gauge(
  'edge_provider_breaker_state',
  "The provider circuit breaker's state: 1 for the state it is in (closed, half_open, open), 0 for the others.",
  ['state'],
);

/** Shows the breaker's new state: 1 for it, 0 for the others. */
export function showBreakerState(state: (typeof BREAKER_STATES)[number]): void {
  for (const each of BREAKER_STATES) breakerState.set({ state: each.replace('-', '_') }, each === state ? 1 : 0);
}
