import { status } from '@grpc/grpc-js';
import { createLogger, RpcError } from '@gw/service-kit';
import { holdOf, paidBill } from '../../test/store-contracts/admission-fixtures';
import { InMemoryBillOutbox } from '../store/outbox/in-memory-bill-outbox';
import { OutboxBill, OutboxLineReturn } from '../store/outbox/bill-outbox';
import { BILL_SET_ASIDE, BillingSink, BillForwarder } from './bill-forwarder';
import { outboxDeliveries } from '../quota-metrics';

/** A billing-service that records what it is sent; `refuse` names bills it refuses for good, `fail` may fail a whole call. */
class FakeBilling implements BillingSink {
  calls: { bills: string[]; returns: OutboxLineReturn[] }[] = [];
  refuse = new Set<string>();
  setAside = new Set<string>();
  fail: (bills: string[], returns: OutboxLineReturn[]) => RpcError | undefined = () => undefined;
  applied: string[] = [];

  async applyBills(bills: OutboxBill[], returns: OutboxLineReturn[]): Promise<unknown[]> {
    const ids = bills.map((b) => b.requestId);
    this.calls.push({ bills: ids, returns });
    const failed = this.fail(ids, returns);
    if (failed) throw failed;
    this.applied.push(...ids.filter((id) => !this.refuse.has(id)), ...returns.map((r) => `return:${r.returnedTotalMicro}`));
    return bills.map((b) => {
      if (this.setAside.has(b.requestId)) return BILL_SET_ASIDE;
      return this.refuse.has(b.requestId) ? new RpcError(status.INVALID_ARGUMENT, 'charge does not follow') : undefined;
    });
  }
}

const bill = (requestId: string) => paidBill('acct', requestId, 6000, 1000, 100, 1400);
const lineReturn = (total: number): OutboxLineReturn => ({ kind: 'return', accountId: 'acct', returnedTotalMicro: total });

describe('BillForwarder delivering bills and line returns (ApplyBills)', () => {
  let outbox: InMemoryBillOutbox;
  let billing: FakeBilling;
  let logs: string[];
  let forwarder: BillForwarder;
  const waiting = async () => (await outbox.claim(10_000)).length;

  beforeEach(() => {
    outbox = new InMemoryBillOutbox();
    billing = new FakeBilling();
    logs = [];
    forwarder = new BillForwarder(
      outbox,
      billing,
      { pollMs: 60_000, maxBackoffMs: 60_000, batchSize: 256 },
      createLogger('quota-service-test', 'warn', (line) => logs.push(line)),
    );
  });
  afterEach(async () => {
    await forwarder.stop();
    jest.useRealTimers();
  });

  it('applies the bills and returns of a batch in one call', async () => {
    for (const record of [bill('b1'), lineReturn(500), bill('b2')]) await outbox.append(record);
    expect(await forwarder.forwardOnce()).toEqual({ delivered: 3, failed: 0 });
    expect(billing.calls).toEqual([{ bills: ['b1', 'b2'], returns: [lineReturn(500)] }]);
    expect(await waiting()).toBe(0);
  });

  it('drops a bill billing-service refuses for good, logged whole, and delivers the rest', async () => {
    billing.refuse.add('bad');
    for (const id of ['good', 'bad']) await outbox.append(bill(id));
    expect(await forwarder.forwardOnce()).toEqual({ delivered: 2, failed: 0 });
    const dropped = logs.map((line) => JSON.parse(line)).find((e) => e.msg === 'bill refused by billing-service, dropped');
    expect(dropped).toMatchObject({ level: 'error', billingId: 'bad', record: { ...bill('bad'), hold: holdOf(6000) } });
    expect(await waiting()).toBe(0);
  });

  it('takes a bill billing-service set aside as delivered: counted, logged, dropped from the outbox and never sent again', async () => {
    const setAsideCount = async () =>
      (await outboxDeliveries.get()).values.find((v) => v.labels.kind === 'bill' && v.labels.outcome === 'set-aside')?.value ?? 0;
    const before = await setAsideCount();
    billing.setAside.add('far');
    for (const id of ['near', 'far']) await outbox.append(bill(id));
    expect(await forwarder.forwardOnce()).toEqual({ delivered: 2, failed: 0 });
    expect(await setAsideCount()).toBe(before + 1);
    const logged = logs.map((line) => JSON.parse(line)).find((e) => e.msg.startsWith('bill set aside by billing-service'));
    expect(logged).toMatchObject({ level: 'warn', billingId: 'far' });
    expect(await waiting()).toBe(0);
    expect(await forwarder.forwardOnce()).toEqual({ delivered: 0, failed: 0 });
    expect(billing.calls.flatMap((c) => c.bills)).toEqual(['near', 'far']);
  });

  it('tries each record alone when a whole call is refused for good, so that one bad record takes no other with it', async () => {
    for (const record of [bill('b1'), lineReturn(-1), bill('b2')]) await outbox.append(record);
    billing.fail = (_bills, returns) =>
      returns.some((r) => r.returnedTotalMicro < 0) ? new RpcError(status.INVALID_ARGUMENT, 'a return past its bounds') : undefined;
    expect(await forwarder.forwardOnce()).toEqual({ delivered: 3, failed: 0 });
    expect(billing.calls.map((c) => [c.bills, c.returns.length])).toEqual([
      [['b1', 'b2'], 1],
      [['b1'], 0],
      [['b2'], 0],
      [[], 1],
    ]);
    expect(billing.applied).toEqual(['b1', 'b2']);
    expect(logs.some((line) => line.includes('"returnedTotalMicro":-1'))).toBe(true);
  });

  it('keeps every bill and return of a call that failed on the way, and delivers them once it works', async () => {
    for (const record of [bill('b1'), lineReturn(700)]) await outbox.append(record);
    billing.fail = () => new RpcError(status.UNAVAILABLE, 'billing-service down');
    expect(await forwarder.forwardOnce()).toEqual({ delivered: 0, failed: 2 });
    expect(await waiting()).toBe(2);
    billing.fail = () => undefined;
    expect(await forwarder.forwardOnce()).toEqual({ delivered: 2, failed: 0 });
    expect(billing.applied).toEqual(['b1', 'return:700']);
  });

  it('sends the next batch of at most 256 at once after a full one, and waits pollMs after one that was not full', async () => {
    jest.useFakeTimers();
    for (let i = 0; i < 600; i++) await outbox.append(bill(`b${i}`));
    forwarder.start();
    await jest.advanceTimersByTimeAsync(10);
    expect(billing.calls.map((c) => c.bills.length)).toEqual([256, 256, 88]);
    await outbox.append(bill('late'));
    await jest.advanceTimersByTimeAsync(60_000 - 20);
    expect(billing.calls).toHaveLength(3);
    await jest.advanceTimersByTimeAsync(20);
    expect(billing.calls).toHaveLength(4);
  });
});
