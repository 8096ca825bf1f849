import { quotaV1 } from '@gw/contracts';
import { GrpcSecurity, grpcClient } from '@gw/service-kit';
import { timedCall } from './timed-call';

/** The edge's calls to quota-service, each with a deadline and timed (timedCall). */
export class QuotaClient {
  private readonly client: quotaV1.QuotaClient;

  constructor(address: string, security: GrpcSecurity, private readonly timeoutMs: number) {
    this.client = grpcClient(quotaV1.QuotaClient, address, security, 'quota-service');
  }

  countRequest(accountId: string): Promise<quotaV1.CountRequestResponse> {
    return timedCall('CountRequest', this.client.countRequest.bind(this.client), { accountId }, this.timeoutMs);
  }

  /** Takes a place; with `lease`, the granted place starts the request's lease. */
  acquirePlace(accountId: string, requestId: string, lease?: quotaV1.Lease): Promise<quotaV1.AcquirePlaceResponse> {
    return timedCall('AcquirePlace', this.client.acquirePlace.bind(this.client), { accountId, requestId, lease }, this.timeoutMs);
  }

  /** Renews the leases of running requests (see LeaseKeeper). */
  renewLeases(leases: quotaV1.Lease[]): Promise<quotaV1.RenewLeasesResponse> {
    return timedCall('RenewLeases', this.client.renewLeases.bind(this.client), { leases }, this.timeoutMs);
  }

  reserveFree(request: quotaV1.ReserveFreeRequest): Promise<quotaV1.ReserveFreeResponse> {
    return timedCall('ReserveFree', this.client.reserveFree.bind(this.client), request, this.timeoutMs);
  }

  /** The one end-of-request call: frees the place, counts the tokens, and queues the bill durably. */
  finishRequest(request: quotaV1.FinishRequestRequest): Promise<quotaV1.FinishRequestResponse> {
    return timedCall('FinishRequest', this.client.finishRequest.bind(this.client), request, this.timeoutMs);
  }

  /** Several FinishRequest calls in one; see FinishCoalescer. */
  finishRequests(requests: quotaV1.FinishRequestRequest[]): Promise<quotaV1.FinishRequestsResponse> {
    return timedCall('FinishRequests', this.client.finishRequests.bind(this.client), { requests }, this.timeoutMs);
  }

  getUsage(accountId: string): Promise<quotaV1.GetUsageResponse> {
    return timedCall('GetUsage', this.client.getUsage.bind(this.client), { accountId }, this.timeoutMs);
  }

  close(): void {
    this.client.close();
  }
}
