import { billingV1 } from '@gw/contracts';
import { ChainedMethods, RpcHandlers, StreamHandlers } from '@gw/service-kit';

/** The handlers of billing.v1.Billing's unary methods, by method key. */
export type BillingHandlers = RpcHandlers<billingV1.BillingService>;

/** The handlers of billing.v1.Billing's streaming methods, by method key. */
export type BillingStreamHandlers = StreamHandlers<billingV1.BillingService>;

/**
 * Methods of billing.v1.Billing served beside the current ones, with the background task they
 * need. The older release's methods come this way (src/legacy/), so that the current
 * methods are read, and the older ones deleted, without the other.
 */
export interface ServedBeside {
  handlers: Partial<BillingHandlers>;
  /** Its streaming methods, given the chained unary methods (for the calls a call stream carries). */
  streams(methods: ChainedMethods): Partial<BillingStreamHandlers>;
  /** Starts its background task, once the server serves. */
  start(): void;
  /** Stops its background task. */
  stop(): Promise<void>;
}
