import type { TraceCarrier } from '@gw/telemetry';
/** How a finished request is paid for. */
export type Payment = 'paid' | 'free';

/** Why a request ended (quota.v1 EndReason); a record of an older replica has none. */
export type EndReason = 'complete' | 'caller-left' | 'provider-broke-off' | 'recovered';

/** Every end reason, in quota.v1 EndReason's order (1 to 4). */
export const END_REASONS: readonly EndReason[] = ['complete', 'caller-left', 'provider-broke-off', 'recovered'];

/** What a finished API request used, and how it is paid for: the part every bill, lease and finish report shares. */
export interface RequestUsage {
  requestId: string;
  accountId: string;
  model: string;
  payment: Payment;
  promptTokens: number;
  completionTokens: number;
  usageEstimated: boolean;
  /** Why it ended, when the caller said (a lapsed lease's bill: 'recovered'). */
  endReason?: EndReason;
  /** The trace of the request that produced the bill, so its delivery links to it (when tracing). */
  traceContext?: TraceCarrier;
}

/**
 * In the outbox, the bill of one finished API request of the older release's path (its hold at
 * billing-service), on its way to billing-service: settled, recorded free, or its hold released.
 */
export interface OlderOutboxBill extends RequestUsage {
  kind?: undefined;
}

/** Money held for a running paid request: its charge is at most `amountMicro`, at these prices (quota.v1 Hold). */
export interface HoldTerms {
  amountMicro: number;
  inputMicroPerMillion: number;
  outputMicroPerMillion: number;
}

/** No hold: a free request's bill carries this. */
export const NO_HOLD: HoldTerms = Object.freeze({ amountMicro: 0, inputMicroPerMillion: 0, outputMicroPerMillion: 0 });

/**
 * In the outbox, the bill of an admitted request (sent as billing.v1 Bill), charged within the account's credit line
 * when paid: `chargeMicro` is min(cost of the tokens at the hold's prices, the hold); a free
 * request's bill has no hold and no charge.
 */
export interface OutboxBill extends RequestUsage {
  kind: 'bill';
  hold: HoldTerms;
  chargeMicro: number;
  /** quota-service's time of the request's admission (billing.v1 Bill.admitted_at_ms): the month it is filed under. */
  admittedAtMs?: number;
  /** The key the request came with, from its admission record (billing.v1 Bill.key_id); undefined from an older edge. */
  keyId?: string;
}

/** Line given back to billing-service: the account's cumulative total returned (billing.v1 LineReturn). */
export interface OutboxLineReturn {
  kind: 'return';
  accountId: string;
  returnedTotalMicro: number;
}

/** What the outbox carries to billing-service. */
export type OutboxRecord = OlderOutboxBill | OutboxBill | OutboxLineReturn;

/** A record handed out for delivery; `id` acknowledges it. */
export interface ClaimedRecord {
  id: string;
  record: OutboxRecord;
}

/**
 * A durable queue of bills (and line returns) between the end of a request and billing-service:
 * every record appended is handed out until acknowledged (at least once; the receiver applies each request
 * id once). Implementations behave identically (see test/store-contracts/bill-outbox.contract.ts); a store that
 * cannot answer rejects with StoreUnavailableError.
 */
export interface BillOutbox {
  append(record: OutboxRecord): Promise<void>;
  /**
   * Up to `max` records to deliver: first those this consumer was handed and did not
   * acknowledge, then those another consumer left unacknowledged for too long (it died), then
   * new ones, each group oldest first.
   */
  claim(max: number): Promise<ClaimedRecord[]>;
  /** Removes delivered records for good. */
  ack(ids: string[]): Promise<void>;
  /** Records not yet delivered, and the age of the oldest of them in seconds (0 when none). */
  backlog(): Promise<OutboxBacklog>;
}

/** What waits in the outbox. */
export interface OutboxBacklog {
  records: number;
  oldestAgeSeconds: number;
}
