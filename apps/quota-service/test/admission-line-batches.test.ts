import { randomUUID } from 'node:crypto';
import { quotaV1 } from '@gw/contracts';
import { AdmissionStack, admitRequest, awayFromMinuteEnd, counterValue, DEADLINE_MS, QuotaReplica } from './admission-stack';
import { OlderBilling, startOlderBilling } from './older-billing';

const { ADMIT_OUTCOME_PAID: PAID, ADMIT_OUTCOME_NOT_COVERED: NOT_COVERED } = quotaV1.AdmitOutcome;

/** The line extensions this process's replicas sent: calls and the lines in them. */
const batches = async () => ({
  calls: await counterValue('quota_credit_line_batch_size_count'),
  lines: await counterValue('quota_credit_line_batch_size_sum'),
});

/**
 * Admits of many accounts with no credit line yet, at once, on EdgeCalls as the edge sends them,
 * with a real billing-service on Postgres: their extensions reach billing-service in a few
 * ExtendCreditLines calls, each Admit answered for its own account; and an older billing-service,
 * without ExtendCreditLines, still extends every line, one ExtendCreditLine each.
 */
describe('credit line extensions of many Admits at once, batched', () => {
  const stack = new AdmissionStack();
  let replica: QuotaReplica;
  let older: OlderBilling | undefined;

  /** Admits a request of the account (request ids are unique across accounts), as the edge does. */
  const admit = async (on: QuotaReplica, accountId: string, model = 'vendor-v4-flash') => {
    const answer = await on.edge.call({ $case: 'admit', value: admitRequest(accountId, `req_${randomUUID()}`, { model }) }, DEADLINE_MS);
    if (answer?.$case !== 'admit') throw new Error('not an Admit answer');
    return answer.value;
  };
  const funded = (n: number, micro: (i: number) => number) =>
    Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const accountId = `acct_${randomUUID()}`;
        await stack.addBalance(accountId, micro(i));
        return accountId;
      }),
    );

  beforeAll(async () => {
    await stack.start();
    replica = await stack.replica();
  });
  afterAll(async () => {
    await stack.stop();
    older?.stop();
  });
  beforeEach(() => awayFromMinuteEnd());

  it('sends the extensions of 300 Admits at once in a few calls, and answers each Admit for its own account and line', async () => {
    // Each its own balance; every 50th too small for vendor-v4-pro's 20,000 held (a 402 with its own figures).
    const balance = (i: number) => (i % 50 === 0 ? 19_000 + i : 30_000 + 10 * i);
    const accounts = await funded(300, balance);
    const before = await batches();
    const answers = await Promise.all([
      ...accounts.map((accountId, i) => admit(replica, accountId, i % 50 === 0 ? 'vendor-v4-pro' : 'vendor-v4-flash')),
      admit(replica, accounts[1]),
    ]);
    const after = await batches();

    accounts.forEach((_, i) => {
      if (i % 50 === 0) expect(answers[i]).toMatchObject({ outcome: NOT_COVERED, balanceMicroLyd: balance(i), requiredMicroLyd: 20_000 });
      else
        expect(answers[i]).toMatchObject({
          outcome: PAID,
          hold: { amountMicroLyd: 5000 },
          count: { remaining: i === 1 ? expect.any(Number) : 29 },
        });
    });
    // The same account twice: both paid, counted 2 in its minute.
    expect(answers[300]).toMatchObject({ outcome: PAID });
    expect([answers[1].count?.remaining, answers[300].count?.remaining].sort()).toEqual([28, 29]);
    // Each account's whole balance lent, once: what its Admit's line answered.
    const lines = await Promise.all(accounts.map((a) => stack.line(a)));
    expect(lines.map((l) => l.granted)).toEqual(accounts.map((_, i) => balance(i)));

    // One line per Admit that found none (the account twice may have asked twice), in a handful of calls.
    expect(after.lines - before.lines).toBeGreaterThanOrEqual(300);
    expect(after.lines - before.lines).toBeLessThanOrEqual(301);
    expect(after.calls - before.calls).toBeLessThanOrEqual(30);
    console.info(`300 Admits at once: ${after.calls - before.calls} ExtendCreditLines calls for ${after.lines - before.lines} lines`);
  });

  it('extends every line through ExtendCreditLine, one call a line, with an older billing-service that answers ExtendCreditLines UNIMPLEMENTED', async () => {
    older = await startOlderBilling(stack.billingAddress, 'ExtendCreditLines');
    const onOlder = await stack.replica({ BILLING_ADDR: older.address });
    const accounts = await funded(40, (i) => 10_000 + i);
    const answers = await Promise.all(accounts.map((accountId) => admit(onOlder, accountId)));
    expect(answers.map((a) => a.outcome)).toEqual(accounts.map(() => PAID));
    expect((await Promise.all(accounts.map((a) => stack.line(a)))).map((l) => l.granted)).toEqual(accounts.map((_, i) => 10_000 + i));
    // The replica's own probe found no line either (an account without money): one call more.
    expect(older.served.get('ExtendCreditLine')).toBe(41);
  });
});
