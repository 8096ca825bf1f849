import { credentials } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { unaryCall } from '@gw/service-kit';

/** The edge's calls to billing-service, each with a deadline. */
export class BillingClient {
  private readonly client: billingV1.BillingClient;

  constructor(address: string, private readonly timeoutMs: number) {
    this.client = new billingV1.BillingClient(address, credentials.createInsecure());
  }

  authorize(request: billingV1.AuthorizeRequest): Promise<billingV1.AuthorizeResponse> {
    return unaryCall(this.client.authorize.bind(this.client), request, this.timeoutMs);
  }

  releaseHold(requestId: string): Promise<billingV1.ReleaseHoldResponse> {
    return unaryCall(this.client.releaseHold.bind(this.client), { requestId }, this.timeoutMs);
  }

  close(): void {
    this.client.close();
  }
}
