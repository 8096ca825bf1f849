import { billingV1 } from '@gw/contracts';
import { callBatch, RpcClient } from '@gw/service-kit';
import { OlderBillingSink } from '../../domain/legacy/older-bill-deliveries';
import { HoldRenewer } from '../../domain/legacy/older-hold-renewals';
import { OlderOutboxBill } from '../../store/outbox/bill-outbox';

/** billing-service's calls for the older release's path: its bills, and the holds at billing-service of its running requests. */
export class OlderBillingCalls implements OlderBillingSink, HoldRenewer {
  constructor(private readonly rpc: RpcClient<billingV1.BillingClient, billingV1.BillingService>) {}

  /** Settles paid requests in one SettleMany (one Settle each from a billing-service without it): each record's error, or undefined once settled. */
  async settleMany(records: OlderOutboxBill[]): Promise<unknown[]> {
    const requests = records.map(({ requestId, promptTokens, completionTokens, usageEstimated }) => ({
      requestId,
      promptTokens,
      completionTokens,
      usageEstimated,
    }));
    const results = await callBatch(
      requests,
      async (many) =>
        (await this.rpc.settleMany({ requests: many })).outcomes.map((o) => ({
          ...o,
          result: o.settled,
        })),
      (one) => this.rpc.settle(one),
    );
    return results.map((r) => (r.ok ? undefined : r.err));
  }

  async recordFree(record: OlderOutboxBill): Promise<void> {
    const { requestId, accountId, model, promptTokens, completionTokens, usageEstimated } = record;
    await this.rpc.recordFree({ requestId, accountId, model, promptTokens, completionTokens, usageEstimated });
  }

  async releaseHold(requestId: string): Promise<void> {
    await this.rpc.releaseHold({ requestId });
  }

  async renewHolds(requestIds: string[]): Promise<void> {
    await this.rpc.renewHolds({ requestIds });
  }
}
