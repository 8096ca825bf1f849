import { Logger } from '@gw/service-kit';
import { BillingClient } from '../clients/billing-client';
import { OlderBillingCalls } from '../clients/legacy/older-billing-calls';
import { OlderBillDeliveries } from '../domain/legacy/older-bill-deliveries';
import { OlderHoldRenewals } from '../domain/legacy/older-hold-renewals';
import { OlderRequestFinisher } from '../domain/legacy/older-request-finisher';
import { FinisherStores } from '../domain/request-finisher';
import { withOlderEdgeCalls } from '../grpc/legacy/older-edge-calls';
import { OlderCalls } from '../grpc/quota-grpc';

/**
 * What quota-service keeps only for an edge of the release before Admit (rolling-upgrade's
 * previous release), which counts, holds at billing-service, reserves and places in turn: its
 * calls (quota.v1 ReserveFree, FinishRequests, AcquirePlace with a lease, FinishRequest without
 * `admitted`, all marked deprecated), the end of its requests and of their lapsed leases, and the
 * delivery of their bills (billing.v1 SettleMany, RecordFree, ReleaseHold) and the renewal of
 * their holds (RenewHolds). It goes after the
 * first release with Admit: deleting every `legacy/` folder of quota-service and the lines of
 * quota-app.ts that name `older` removes it.
 */
export interface OlderRelease {
  /** Finishes the older path's lapsed leases. */
  finisher: OlderRequestFinisher;
  /** Delivers the older path's bills from the outbox. */
  deliveries: OlderBillDeliveries;
  /** Renews the holds at billing-service of the older path's running paid requests with their leases. */
  renewals: OlderHoldRenewals;
  /** Serves the older edge's calls on top of the current ones. */
  calls: OlderCalls;
}

/** The older release's path of quota-service, on the current stores and billing client. */
export function olderRelease(stores: FinisherStores, billing: BillingClient, logger: Logger): OlderRelease {
  const finisher = new OlderRequestFinisher(stores);
  const calls = new OlderBillingCalls(billing.rpc);
  return {
    finisher,
    deliveries: new OlderBillDeliveries(calls),
    renewals: new OlderHoldRenewals(calls, logger),
    calls: (current, domain) => withOlderEdgeCalls(current, { ...domain, finisher }, logger),
  };
}
