import { quotaV1 } from '@gw/contracts';
import { RpcCalls } from '@gw/service-kit';
import { QuotaClient } from '../clients/quota-client';

/**
 * The quota.v1 calls only the older path makes (a free reservation, a place), carried on the
 * edge's EdgeCalls streams like the current ones.
 */
export class OlderQuotaCalls {
  private readonly calls: Pick<RpcCalls<quotaV1.QuotaService>, 'acquirePlace' | 'reserveFree'>;

  constructor(quota: QuotaClient) {
    this.calls = quota.carry(['acquirePlace', 'reserveFree']);
  }

  /** Takes a place; the granted place starts the request's lease. */
  acquirePlace(accountId: string, billingId: string, lease: quotaV1.Lease): Promise<quotaV1.AcquirePlaceResponse> {
    return this.calls.acquirePlace({ accountId, requestId: billingId, lease });
  }

  reserveFree(request: quotaV1.ReserveFreeRequest): Promise<quotaV1.ReserveFreeResponse> {
    return this.calls.reserveFree(request);
  }
}
