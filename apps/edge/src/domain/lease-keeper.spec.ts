import { quotaV1 } from '@gw/contracts';
import { createLogger } from '@gw/service-kit';
import { finalBillsDropped, finalBillsKept, finalBillsMax } from '../edge-metrics';
import { LeaseKeeper } from './lease-keeper';
import { LeaseRenewing } from './ports';

const lease = (requestId: string): quotaV1.Lease => ({
  accountId: 'a',
  requestId,
  model: 'm',
  payment: quotaV1.Payment.PAYMENT_PAID,
  promptTokens: 10,
  completionTokens: 5,
});

/** A metric's value now (a metric without labels). */
const valueOf = async (metric: { get(): Promise<{ values: { value: number }[] }> }) => (await metric.get()).values[0]?.value ?? 0;

/** The billing ids and final marks of each RenewLeases call. */
const idsOf = (sent: quotaV1.Lease[][]) => sent.map((batch) => batch.map((l) => [l.requestId, l.final ?? false]));

/** quota-service as RenewLeases answers: the ids it names unknown. */
function quotaAnswering(unknown: (leases: quotaV1.Lease[]) => string[]) {
  const sent: quotaV1.Lease[][] = [];
  const quota = {
    renewLeases: async (leases: quotaV1.Lease[]) => {
      sent.push(leases);
      return { unknownRequestIds: unknown(leases) };
    },
  };
  return { quota: quota as LeaseRenewing, sent };
}

describe('LeaseKeeper', () => {
  const warnings: string[] = [];
  const logger = createLogger('edge-test', 'warn', (line) => warnings.push(line));
  let keeper: LeaseKeeper;
  afterEach(async () => {
    await keeper.stop();
    jest.useRealTimers();
  });

  it('renews an admitted request after its finish landed as its final bill, until quota-service has applied it', async () => {
    const { quota, sent } = quotaAnswering((leases) => leases.filter((l) => l.final && sent.length > 2).map((l) => l.requestId));
    keeper = new LeaseKeeper(quota, 60_000, logger, 1000);
    keeper.keep({ billingId: 'r1', leaseNow: () => lease('r1') });
    await keeper.renewAll();
    keeper.finished('r1');
    await keeper.renewAll();
    await keeper.renewAll();
    await keeper.renewAll();
    expect(sent.map((batch) => batch.map((l) => [l.requestId, l.final ?? false]))).toEqual([
      [['r1', false]],
      [['r1', true]],
      [['r1', true]],
    ]);
    expect(warnings).toEqual([]);
  });

  it('renews at once, with those of the same moment, the leases of requests whose reply began, long before the next tick', async () => {
    jest.useFakeTimers();
    const { quota, sent } = quotaAnswering(() => []);
    keeper = new LeaseKeeper(quota, 60_000, logger, 1000);
    let completionTokens = 0;
    for (const id of ['r7', 'r8', 'r9']) keeper.keep({ billingId: id, leaseNow: () => ({ ...lease(id), completionTokens }) });
    completionTokens = 3;
    keeper.replyBegan('r7');
    keeper.replyBegan('r8');
    keeper.replyBegan('gone');
    await jest.advanceTimersByTimeAsync(100);
    expect(sent).toEqual([
      [
        { ...lease('r7'), completionTokens: 3 },
        { ...lease('r8'), completionTokens: 3 },
      ],
    ]);
    keeper.finished('r7');
    keeper.replyBegan('r7');
    await jest.advanceTimersByTimeAsync(100);
    expect(sent).toHaveLength(1);
  });

  it('waits, as it stops, for the renewal of a reply that began still on the wire', async () => {
    jest.useFakeTimers();
    let answer: (() => void) | undefined;
    const events: string[] = [];
    const quota = {
      renewLeases: (leases: quotaV1.Lease[]) =>
        new Promise<quotaV1.RenewLeasesResponse>((resolve) => {
          events.push(`sent ${leases.length}`);
          answer = () => {
            events.push('answered');
            resolve({ unknownRequestIds: [] });
          };
        }),
    };
    keeper = new LeaseKeeper(quota as LeaseRenewing, 60_000, logger, 1000);
    keeper.keep({ billingId: 'r5', leaseNow: () => lease('r5') });
    keeper.replyBegan('r5');
    await jest.advanceTimersByTimeAsync(100);
    expect(events).toEqual(['sent 1']);
    const stopped = keeper.stop().then(() => events.push('stopped'));
    await jest.advanceTimersByTimeAsync(50);
    expect(events).toEqual(['sent 1']);
    answer?.();
    await stopped;
    expect(events).toEqual(['sent 1', 'answered', 'stopped']);
  });

  it("takes the final bill when the finish lands and lets go of the request's state: what it says later is not asked", async () => {
    const { quota, sent } = quotaAnswering(() => []);
    keeper = new LeaseKeeper(quota, 60_000, logger, 1000);
    let completionTokens = 5;
    keeper.keep({ billingId: 'r4', leaseNow: () => ({ ...lease('r4'), completionTokens }) });
    keeper.finished('r4');
    completionTokens = 99;
    await keeper.renewAll();
    expect(sent).toEqual([[{ ...lease('r4'), completionTokens: 5, final: true }]]);
  });

  it('keeps the final bill when the finish lands while a renewal of the running lease is on the wire: its unknown says nothing of the bill', async () => {
    // quota-service as it answers after the finish: the running lease ended (unknown), the final bill waiting in the outbox (kept).
    const { quota, sent } = quotaAnswering((leases) => {
      if (sent.length === 1) keeper.finished('r5');
      return leases.filter((l) => !l.final).map((l) => l.requestId);
    });
    keeper = new LeaseKeeper(quota, 60_000, logger, 1000);
    keeper.keep({ billingId: 'r5', leaseNow: () => lease('r5') });
    await keeper.renewAll();
    await keeper.renewAll();
    expect(sent.map((batch) => batch.map((l) => [l.requestId, l.final ?? false]))).toEqual([[['r5', false]], [['r5', true]]]);
  });

  it('keeps the final bill of a request whose running lease was answered unknown before its finish landed', async () => {
    // quota-service finished the request (its finish's answer, or the reaper's lapse) before this renewal of it.
    const { quota, sent } = quotaAnswering((leases) => leases.filter((l) => !l.final).map((l) => l.requestId));
    keeper = new LeaseKeeper(quota, 60_000, logger, 1000);
    keeper.keep({ billingId: 'r6', leaseNow: () => lease('r6') });
    await keeper.renewAll();
    keeper.finished('r6');
    await keeper.renewAll();
    expect(sent.map((batch) => batch.map((l) => [l.requestId, l.final ?? false]))).toEqual([[['r6', false]], [['r6', true]]]);
  });

  it('lets go of a running request quota-service no longer knows, saying so', async () => {
    const { quota, sent } = quotaAnswering((leases) => leases.map((l) => l.requestId));
    keeper = new LeaseKeeper(quota, 60_000, logger, 1000);
    keeper.keep({ billingId: 'r2', leaseNow: () => lease('r2') });
    await keeper.renewAll();
    await keeper.renewAll();
    expect(sent).toHaveLength(1);
    expect(warnings.join('\n')).toContain('lease unknown to quota-service');
  });

  it('lets go of a request whose running lease was answered unknown when no finish lands within 10 minutes', async () => {
    const { quota, sent } = quotaAnswering((leases) => leases.map((l) => l.requestId));
    keeper = new LeaseKeeper(quota, 60_000, logger, 1000);
    keeper.keep({ billingId: 'r7', leaseNow: () => lease('r7') });
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
    await keeper.renewAll();
    clock.mockReturnValue(now + 10 * 60_000 + 1);
    await keeper.renewAll();
    keeper.finished('r7');
    await keeper.renewAll();
    clock.mockRestore();
    expect(sent).toHaveLength(1);
  });

  it('keeps renewing a final bill past 10 minutes, however long billing-service is away, until quota-service answers it applied', async () => {
    let applied = false;
    const { quota, sent } = quotaAnswering((leases) => (applied ? leases.map((l) => l.requestId) : []));
    keeper = new LeaseKeeper(quota, 60_000, logger, 1000);
    keeper.keep({ billingId: 'r3', leaseNow: () => lease('r3') });
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
    try {
      keeper.finished('r3');
      for (const later of [10 * 60_000 + 1, 60 * 60_000, 24 * 60 * 60_000]) {
        clock.mockReturnValue(now + later);
        await keeper.renewAll();
      }
      applied = true;
      await keeper.renewAll();
      await keeper.renewAll();
    } finally {
      clock.mockRestore();
    }
    expect(idsOf(sent)).toEqual([[['r3', true]], [['r3', true]], [['r3', true]], [['r3', true]]]);
    expect(await valueOf(finalBillsKept)).toBe(0);
  });

  it('keeps at most its bound of final bills: one more drops the oldest, logged with what it bills and counted, and the gauge shows how many are kept', async () => {
    const errors: string[] = [];
    const errorLogger = createLogger('edge-test', 'error', (line) => errors.push(line));
    const { quota, sent } = quotaAnswering((leases) => leases.filter((l) => l.requestId === 'b2').map((l) => l.requestId));
    keeper = new LeaseKeeper(quota, 60_000, errorLogger, 2);
    const droppedBefore = await valueOf(finalBillsDropped);
    expect(await valueOf(finalBillsMax)).toBe(2);
    for (const id of ['b1', 'b2', 'b3']) keeper.keep({ billingId: id, leaseNow: () => ({ ...lease(id), completionTokens: 7 }) });
    keeper.finished('b1');
    keeper.finished('b2');
    expect(await valueOf(finalBillsKept)).toBe(2);
    expect(errors).toEqual([]);
    keeper.finished('b3');
    expect(await valueOf(finalBillsKept)).toBe(2);
    expect(await valueOf(finalBillsDropped)).toBe(droppedBefore + 1);
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0])).toMatchObject({
      msg: expect.stringContaining('final bill dropped unapplied at EDGE_FINAL_BILLS_MAX'),
      billingId: 'b1',
      accountId: 'a',
      promptTokens: 10,
      completionTokens: 7,
      final: true,
    });
    await keeper.renewAll();
    await keeper.renewAll();
    expect(idsOf(sent)).toEqual([
      [
        ['b2', true],
        ['b3', true],
      ],
      [['b3', true]],
    ]);
    expect(await valueOf(finalBillsKept)).toBe(1);
  });
});
