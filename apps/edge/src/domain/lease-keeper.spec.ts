import { quotaV1 } from '@gw/contracts';
import { createLogger } from '@gw/service-kit';
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
  afterEach(() => keeper.stop());

  it('renews an admitted request after its finish landed as its final bill, until quota-service has applied it', async () => {
    const { quota, sent } = quotaAnswering((leases) => leases.filter((l) => l.final && sent.length > 2).map((l) => l.requestId));
    keeper = new LeaseKeeper(quota, 60_000, logger);
    keeper.keep('r1', () => lease('r1'));
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
    const { quota, sent } = quotaAnswering(() => []);
    keeper = new LeaseKeeper(quota, 60_000, logger);
    let completionTokens = 0;
    for (const id of ['r7', 'r8', 'r9']) keeper.keep(id, () => ({ ...lease(id), completionTokens }));
    completionTokens = 3;
    keeper.replyBegan('r7');
    keeper.replyBegan('r8');
    keeper.replyBegan('gone');
    await new Promise((r) => setTimeout(r, 100));
    expect(sent).toEqual([
      [
        { ...lease('r7'), completionTokens: 3 },
        { ...lease('r8'), completionTokens: 3 },
      ],
    ]);
    keeper.finished('r7');
    keeper.replyBegan('r7');
    await new Promise((r) => setTimeout(r, 100));
    expect(sent).toHaveLength(1);
  });

  it('waits, as it stops, for the renewal of a reply that began still on the wire', async () => {
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
    keeper = new LeaseKeeper(quota as LeaseRenewing, 60_000, logger);
    keeper.keep('r5', () => lease('r5'));
    keeper.replyBegan('r5');
    while (!answer) await new Promise((r) => setTimeout(r, 5));
    const stopped = keeper.stop().then(() => events.push('stopped'));
    await new Promise((r) => setTimeout(r, 50));
    expect(events).toEqual(['sent 1']);
    answer();
    await stopped;
    expect(events).toEqual(['sent 1', 'answered', 'stopped']);
  });

  it("takes the final bill when the finish lands and lets go of the request's state: what it says later is not asked", async () => {
    const { quota, sent } = quotaAnswering(() => []);
    keeper = new LeaseKeeper(quota, 60_000, logger);
    let completionTokens = 5;
    keeper.keep('r4', () => ({ ...lease('r4'), completionTokens }));
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
    keeper = new LeaseKeeper(quota, 60_000, logger);
    keeper.keep('r5', () => lease('r5'));
    await keeper.renewAll();
    await keeper.renewAll();
    expect(sent.map((batch) => batch.map((l) => [l.requestId, l.final ?? false]))).toEqual([[['r5', false]], [['r5', true]]]);
  });

  it('keeps the final bill of a request whose running lease was answered unknown before its finish landed', async () => {
    // quota-service finished the request (its finish's answer, or the reaper's lapse) before this renewal of it.
    const { quota, sent } = quotaAnswering((leases) => leases.filter((l) => !l.final).map((l) => l.requestId));
    keeper = new LeaseKeeper(quota, 60_000, logger);
    keeper.keep('r6', () => lease('r6'));
    await keeper.renewAll();
    keeper.finished('r6');
    await keeper.renewAll();
    expect(sent.map((batch) => batch.map((l) => [l.requestId, l.final ?? false]))).toEqual([[['r6', false]], [['r6', true]]]);
  });

  it('lets go of a running request quota-service no longer knows, saying so', async () => {
    const { quota, sent } = quotaAnswering((leases) => leases.map((l) => l.requestId));
    keeper = new LeaseKeeper(quota, 60_000, logger);
    keeper.keep('r2', () => lease('r2'));
    await keeper.renewAll();
    await keeper.renewAll();
    expect(sent).toHaveLength(1);
    expect(warnings.join('\n')).toContain('lease unknown to quota-service');
  });

  it('lets go of a request whose running lease was answered unknown when no finish lands within 10 minutes', async () => {
    const { quota, sent } = quotaAnswering((leases) => leases.map((l) => l.requestId));
    keeper = new LeaseKeeper(quota, 60_000, logger);
    keeper.keep('r7', () => lease('r7'));
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

  it('keeps a final bill at most 10 minutes', async () => {
    const { quota, sent } = quotaAnswering(() => []);
    keeper = new LeaseKeeper(quota, 60_000, logger);
    keeper.keep('r3', () => lease('r3'));
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
    keeper.finished('r3');
    clock.mockReturnValue(now + 10 * 60_000);
    await keeper.renewAll();
    clock.mockReturnValue(now + 10 * 60_000 + 1);
    await keeper.renewAll();
    clock.mockRestore();
    expect(sent).toHaveLength(1);
  });
});
