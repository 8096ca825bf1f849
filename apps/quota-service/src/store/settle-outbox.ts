import type { TraceCarrier } from '@gw/telemetry';
/** How a finished request is paid for. */
export type Payment = 'paid' | 'free';

/** The bill of one finished API request, on its way to billing-service. */
export interface SettleRecord {
  requestId: string;
  accountId: string;
  model: string;
  payment: Payment;
  promptTokens: number;
  completionTokens: number;
  usageEstimated: boolean;
  /** The trace of the request that produced the bill, so its delivery links to it (when tracing). */
  traceContext?: TraceCarrier;
}

/** A record handed out for delivery; `id` acknowledges it. */
export interface ClaimedSettle {
  id: string;
  record: SettleRecord;
}

/**
 * A durable queue of bills between the end of a request and billing-service: every record
 * appended is handed out until acknowledged (at least once; the receiver applies each request
 * id once). Implementations behave identically (see settle-outbox.contract.ts); a store that
 * cannot answer rejects with StoreUnavailableError.
 */
export interface SettleOutbox {
  append(record: SettleRecord): Promise<void>;
  /**
   * Up to `max` records to deliver: first those this consumer was handed and did not
   * acknowledge, then those another consumer left unacknowledged for too long (it died), then
   * new ones, each group oldest first.
   */
  claim(max: number): Promise<ClaimedSettle[]>;
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
