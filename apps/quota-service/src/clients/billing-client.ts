import { billingV1 } from '@gw/contracts';
import { grpcClient, unaryCall } from '@gw/service-kit';
import { BillingSink } from '../domain/settle-forwarder';
import { SettleRecord } from '../store/settle-outbox';

/** quota-service's only outbound calls: delivering bills to billing-service, each with a deadline. */
export class BillingClient implements BillingSink {
  private readonly client: billingV1.BillingClient;

  constructor(
    address: string,
    private readonly timeoutMs: number,
  ) {
    this.client = grpcClient(billingV1.BillingClient, address);
  }

  async settle(record: SettleRecord): Promise<void> {
    const { requestId, promptTokens, completionTokens, usageEstimated } = record;
    await unaryCall(this.client.settle.bind(this.client), { requestId, promptTokens, completionTokens, usageEstimated }, this.timeoutMs);
  }

  async recordFree(record: SettleRecord): Promise<void> {
    const { requestId, accountId, model, promptTokens, completionTokens, usageEstimated } = record;
    const request = { requestId, accountId, model, promptTokens, completionTokens, usageEstimated };
    await unaryCall(this.client.recordFree.bind(this.client), request, this.timeoutMs);
  }

  async releaseHold(requestId: string): Promise<void> {
    await unaryCall(this.client.releaseHold.bind(this.client), { requestId }, this.timeoutMs);
  }

  close(): void {
    this.client.close();
  }
}
