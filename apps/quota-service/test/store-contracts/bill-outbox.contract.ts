import { randomUUID } from 'node:crypto';
import { BillOutbox, OlderOutboxBill } from '../../src/store/outbox/bill-outbox';

/** Opens an empty BillOutbox of its own. */
export type BillOutboxFactory = () => Promise<BillOutbox>;

/** A bill with a fresh request id. */
export function olderOutboxBill(overrides: Partial<OlderOutboxBill> = {}): OlderOutboxBill {
  return {
    requestId: `req_${randomUUID()}`,
    accountId: 'acct_outbox',
    model: 'vendor-v4-flash',
    payment: 'paid',
    promptTokens: 100,
    completionTokens: 20,
    usageEstimated: false,
    ...overrides,
  };
}

/** The behaviour every BillOutbox must have, run against each implementation. */
export function describeBillOutboxContract(name: string, open: BillOutboxFactory): void {
  describe(`BillOutbox contract: ${name}`, () => {
    let outbox: BillOutbox;
    const records = async (max = 100) => (await outbox.claim(max)).map((c) => c.record);

    beforeEach(async () => {
      outbox = await open();
    });

    it('hands out nothing when empty', async () => {
      expect(await outbox.claim(10)).toEqual([]);
    });

    it('hands out every record as appended, oldest first, up to max', async () => {
      const appended = [
        olderOutboxBill(),
        olderOutboxBill({ payment: 'free', usageEstimated: true }),
        olderOutboxBill({ promptTokens: 0, completionTokens: 0 }),
      ];
      for (const record of appended) await outbox.append(record);
      expect(await records(2)).toEqual(appended.slice(0, 2));
      expect(await records()).toEqual(appended);
    });

    it('hands a record out again until it is acknowledged, then never again', async () => {
      const [first, second] = [olderOutboxBill(), olderOutboxBill()];
      await outbox.append(first);
      await outbox.append(second);
      const claimed = await outbox.claim(10);
      expect(await records()).toEqual([first, second]);
      await outbox.ack([claimed[0].id]);
      expect(await records()).toEqual([second]);
      await outbox.ack([claimed[1].id]);
      await outbox.ack([claimed[1].id]);
      expect(await outbox.claim(10)).toEqual([]);
    });

    it('keeps records appended while others are being delivered', async () => {
      const first = olderOutboxBill();
      await outbox.append(first);
      const claimed = await outbox.claim(10);
      const later = olderOutboxBill();
      await outbox.append(later);
      await outbox.ack(claimed.map((c) => c.id));
      expect(await records()).toEqual([later]);
    });

    it('tells how many records wait and how old the oldest is, handed out or not, until acknowledged', async () => {
      expect(await outbox.backlog()).toEqual({ records: 0, oldestAgeSeconds: 0 });
      await outbox.append(olderOutboxBill());
      // The oldest record's age is the scenario: it is 60 ms older than the next.
      await new Promise((resolve) => setTimeout(resolve, 60));
      await outbox.append(olderOutboxBill());
      const claimed = await outbox.claim(1);
      const waiting = await outbox.backlog();
      expect(waiting.records).toBe(2);
      expect(waiting.oldestAgeSeconds).toBeGreaterThanOrEqual(0.05);
      expect(waiting.oldestAgeSeconds).toBeLessThan(5);
      await outbox.ack(claimed.map((c) => c.id));
      expect((await outbox.backlog()).records).toBe(1);
      expect((await outbox.backlog()).oldestAgeSeconds).toBeLessThan(waiting.oldestAgeSeconds);
      await outbox.ack((await outbox.claim(10)).map((c) => c.id));
      expect(await outbox.backlog()).toEqual({ records: 0, oldestAgeSeconds: 0 });
    });
  });
}
