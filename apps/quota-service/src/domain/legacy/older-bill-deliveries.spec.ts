import { createLogger } from '@gw/service-kit';
import { paidBill } from '../../../test/store-contracts/admission-fixtures';
import { olderOutboxBill } from '../../../test/store-contracts/bill-outbox.contract';
import { InMemoryBillOutbox } from '../../store/outbox/in-memory-bill-outbox';
import { OutboxBill, OutboxLineReturn, OlderOutboxBill } from '../../store/outbox/bill-outbox';
import { BillingSink, BillForwarder } from '../bill-forwarder';
import { OlderBillDeliveries, OlderBillingSink } from './older-bill-deliveries';

/** A billing-service that records what it is sent, by both paths. */
class FakeBilling implements BillingSink, OlderBillingSink {
  applied: string[] = [];
  older: string[] = [];

  async applyBills(bills: OutboxBill[], returns: OutboxLineReturn[]): Promise<unknown[]> {
    this.applied.push(...bills.map((b) => b.requestId), ...returns.map((r) => `return:${r.returnedTotalMicro}`));
    return bills.map(() => undefined);
  }
  async settleMany(records: OlderOutboxBill[]): Promise<unknown[]> {
    this.older.push(...records.map((r) => `settle:${r.requestId}`));
    return records.map(() => undefined);
  }
  async recordFree(record: OlderOutboxBill): Promise<void> {
    this.older.push(`free:${record.requestId}`);
  }
  async releaseHold(requestId: string): Promise<void> {
    this.older.push(`release:${requestId}`);
  }
}

describe("BillForwarder delivering the older release's bills beside the current ones", () => {
  it('applies bills and returns, settles an older paid bill, records a free one and releases the hold of one without tokens', async () => {
    const outbox = new InMemoryBillOutbox();
    const billing = new FakeBilling();
    const logger = createLogger('quota-service-test', 'warn', () => undefined);
    const forwarder = new BillForwarder(
      outbox,
      billing,
      { pollMs: 60_000, maxBackoffMs: 60_000, batchSize: 256 },
      logger,
      new OlderBillDeliveries(billing),
    );
    const records = [
      paidBill('acct', 'b1', 6000, 1000, 100, 1400),
      { kind: 'return' as const, accountId: 'acct', returnedTotalMicro: 500 },
      olderOutboxBill({ requestId: 'older-paid' }),
      olderOutboxBill({ requestId: 'older-free', payment: 'free' }),
      olderOutboxBill({ requestId: 'older-unused', promptTokens: 0, completionTokens: 0 }),
    ];
    for (const record of records) await outbox.append(record);
    expect(await forwarder.forwardOnce()).toEqual({ delivered: 5, failed: 0 });
    expect(billing.applied).toEqual(['b1', 'return:500']);
    expect(billing.older.sort()).toEqual(['free:older-free', 'release:older-unused', 'settle:older-paid']);
    expect(await outbox.claim(10)).toEqual([]);
    await forwarder.stop();
  });
});
