import { billingV1 } from '@gw/contracts';
import { callBatch, GrpcSecurity, grpcClient, unaryCall } from '@gw/service-kit';
import { HoldRenewer } from '../domain/request-leases';
import { BillingSink } from '../domain/settle-forwarder';
import { SettleRecord } from '../store/settle-outbox';

/** quota-service's only outbound calls, to billing-service, each with a deadline: delivering bills and renewing the holds of running requests. */
export class BillingClient implements BillingSink, HoldRenewer {
  private readonly client: billingV1.BillingClient;

  constructor(
    address: string,
    security: GrpcSecurity,
    private readonly timeoutMs: number,
  ) {
    this.client = grpcClient(billingV1.BillingClient, address, security, 'billing-service');
  }

  /** Settles paid requests in one SettleMany: each record's error, or undefined once settled. */
  async settleMany(records: SettleRecord[]): Promise<unknown[]> {
    const requests = records.map(({ requestId, promptTokens, completionTokens, usageEstimated }) => ({ requestId, promptTokens, completionTokens, usageEstimated }));
    const results = await callBatch(
      requests,
      async (many) => (await unaryCall(this.client.settleMany.bind(this.client), { requests: many }, this.timeoutMs)).outcomes.map((o) => ({ ...o, result: o.settled })),
      (one) => unaryCall(this.client.settle.bind(this.client), one, this.timeoutMs),
    );
    return results.map((r) => (r.ok ? undefined : r.err));
  }

  async recordFree(record: SettleRecord): Promise<void> {
    const { requestId, accountId, model, promptTokens, completionTokens, usageEstimated } = record;
    const request = { requestId, accountId, model, promptTokens, completionTokens, usageEstimated };
    await unaryCall(this.client.recordFree.bind(this.client), request, this.timeoutMs);
  }

  async releaseHold(requestId: string): Promise<void> {
    await unaryCall(this.client.releaseHold.bind(this.client), { requestId }, this.timeoutMs);
  }

  async renewHolds(requestIds: string[]): Promise<void> {
    await unaryCall(this.client.renewHolds.bind(this.client), { requestIds }, this.timeoutMs);
  }

  close(): void {
    this.client.close();
  }
}
