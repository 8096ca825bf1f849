import { billingV1 } from '@gw/contracts';
import { GrpcSecurity, grpcClient } from '@gw/service-kit';
import { timedCall } from './timed-call';

/** The edge's calls to billing-service, each with a deadline and timed (timedCall). */
export class BillingClient {
  private readonly client: billingV1.BillingClient;

  constructor(address: string, security: GrpcSecurity, private readonly timeoutMs: number) {
    this.client = grpcClient(billingV1.BillingClient, address, security, 'billing-service');
  }

  authorize(request: billingV1.AuthorizeRequest): Promise<billingV1.AuthorizeResponse> {
    return timedCall('Authorize', this.client.authorize.bind(this.client), request, this.timeoutMs);
  }

  releaseHold(requestId: string): Promise<billingV1.ReleaseHoldResponse> {
    return timedCall('ReleaseHold', this.client.releaseHold.bind(this.client), { requestId }, this.timeoutMs);
  }

  close(): void {
    this.client.close();
  }
}
