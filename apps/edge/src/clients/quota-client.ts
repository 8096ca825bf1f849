import { credentials } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { unaryCall } from '@gw/service-kit';

/** The edge's calls to quota-service, each with a deadline. */
export class QuotaClient {
  private readonly client: quotaV1.QuotaClient;

  constructor(address: string, private readonly timeoutMs: number) {
    this.client = new quotaV1.QuotaClient(address, credentials.createInsecure());
  }

  countRequest(accountId: string): Promise<quotaV1.CountRequestResponse> {
    return unaryCall(this.client.countRequest.bind(this.client), { accountId }, this.timeoutMs);
  }

  acquirePlace(accountId: string, requestId: string): Promise<quotaV1.AcquirePlaceResponse> {
    return unaryCall(this.client.acquirePlace.bind(this.client), { accountId, requestId }, this.timeoutMs);
  }

  releasePlace(request: quotaV1.ReleasePlaceRequest): Promise<quotaV1.ReleasePlaceResponse> {
    return unaryCall(this.client.releasePlace.bind(this.client), request, this.timeoutMs);
  }

  getUsage(accountId: string): Promise<quotaV1.GetUsageResponse> {
    return unaryCall(this.client.getUsage.bind(this.client), { accountId }, this.timeoutMs);
  }

  close(): void {
    this.client.close();
  }
}
