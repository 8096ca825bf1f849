import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { quotaV1 } from '@gw/contracts';
import { KeyLayout, redisKeys } from '../src/store/redis/redis-keys';
import { AdmissionStack, admitRequest, QuotaReplica } from './admission-stack';

const { ADMIT_OUTCOME_PAID: PAID } = quotaV1.AdmitOutcome;
/** admitRequest's worst case: 1,000 prompt tokens at 1 LYD and 1,000 completion tokens at 4 LYD per million. */
const HOLD = { amountMicroLyd: 5000, inputMicroLydPerMillion: 1_000_000, outputMicroLydPerMillion: 4_000_000 };

/**
 * The store audit (ctl audit's quota half: holds, lines, and lines against billing-service's)
 * after Redis came back empty while a bill waited in its outbox: the edge's renewals bring back
 * the finished request (its bill queued again) and the running one (its hold held again) into a
 * line the store no longer knows, and the store repairs that line from billing-service's totals
 * once its bills are applied. At every step the books are right, so the audit finds nothing wrong;
 * it names the line as being repaired until it is. A line that is wrong is still named.
 */
describe.each(['account', 'shard'] as KeyLayout[])('The store audit after Redis lost a line with a bill waiting (%s layout)', (layout) => {
  const stack = new AdmissionStack();
  let prefix: string;
  /** Serves the account; its outbox is delivered once an hour, so that a bill waits in it. */
  let serving: QuotaReplica;
  let redis: Redis;
  let account: string;
  const keysOf = (accountId: string) => redisKeys(layout, prefix).account(accountId);
  const lease = (requestId: string, completionTokens: number, final = false): quotaV1.Lease => ({
    accountId: account,
    requestId,
    model: 'vendor-v4-flash',
    payment: quotaV1.Payment.PAYMENT_PAID,
    promptTokens: 1000,
    completionTokens,
    hold: HOLD,
    maxTokens: 1000,
    ...(final ? { final: true, endReason: quotaV1.EndReason.END_REASON_COMPLETE } : {}),
  });
  const finishOf = (requestId: string, completionTokens: number): quotaV1.FinishRequestRequest => ({
    accountId: account,
    requestId,
    model: 'vendor-v4-flash',
    payment: quotaV1.Payment.PAYMENT_PAID,
    promptTokens: 1000,
    completionTokens,
    usageEstimated: false,
    hold: HOLD,
    admitted: true,
    endReason: quotaV1.EndReason.END_REASON_COMPLETE,
  });
  const finish = (requestId: string, completionTokens: number) => serving.quota.finishRequest(finishOf(requestId, completionTokens));
  /** The audit's findings about this test's account. */
  const audit = async () => {
    const report = await serving.quota.auditStore({});
    const ours = <T extends { accountId: string }>(found: T[] | undefined) => found?.filter((f) => f.accountId === account);
    return { violations: ours(report.violations), repairingLines: ours(report.repairingLines) };
  };
  /** Redis restarted empty: every key of this file's quota-service replicas gone (the test's own prefix only). */
  const forgetAll = async () => {
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (found.length > 0) await redis.del(...found);
    } while (cursor !== '0');
  };

  beforeAll(async () => {
    await stack.start();
    prefix = `${stack.redis.keyPrefix}loss:`;
    serving = await stack.replica({ REDIS_KEY_PREFIX: prefix, QUOTA_KEY_LAYOUT: layout, SETTLE_POLL_MS: '3600000' });
    redis = new Redis(stack.redis.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await stack.stop();
  });
  beforeEach(async () => {
    account = `acct_${randomUUID()}`;
    await stack.addBalance(account, 100_000);
  });

  it('still names holds beyond what billing-service lent in a line being repaired, and a known line that disagrees', async () => {
    expect(await serving.quota.admit(admitRequest(account, 'held'))).toMatchObject({ outcome: PAID });
    const credit = keysOf(account).credit;
    expect(await serving.quota.returnCreditLine({ accountId: account })).toEqual({ returnedMicroLyd: 95_000, heldMicroLyd: 5000 });
    // A line the store knows, returned less than billing-service applied: wrong.
    await redis.hset(credit, 'rt', 0);
    expect((await audit()).violations).toEqual([
      expect.objectContaining({
        kind: 'lines-disagree',
        accountId: account,
        detail: 'returned 0 micro-LYD here, 95000 at billing-service',
      }),
    ]);
    // The line lost (being repaired), and its one request holding more than billing-service lent.
    await redis.hdel(credit, 'gr', 'rt');
    await redis.hset(credit, 'hd', 6000);
    await redis.hset(keysOf(account).admissions, 'held', JSON.stringify({ hold: { amountMicro: 6000 } }));
    const found = await audit();
    expect(found.violations).toEqual([
      expect.objectContaining({ kind: 'held-beyond-line', accountId: account, detail: 'held 6000 micro-LYD, billing-service lent 5000' }),
    ]);
  });

  it("admits on a line being repaired while a bill it queued again waits, judging billing-service's totals without taking them", async () => {
    // A replica that delivers at once has one request billed (5,000), then goes.
    const delivering = await stack.replica({ REDIS_KEY_PREFIX: prefix, QUOTA_KEY_LAYOUT: layout });
    expect(await delivering.quota.admit(admitRequest(account, 'repairing-applied'))).toMatchObject({ outcome: PAID });
    await delivering.quota.finishRequest(finishOf('repairing-applied', 1000));
    await stack.expectEventually(async () => (await stack.ledger('repairing-applied')).length, 1);
    await stack.stopReplica(delivering);
    // 3,000 more, its bill waiting; then Redis comes back empty and the edge queues it again.
    expect(await serving.quota.admit(admitRequest(account, 'repairing-pending'))).toMatchObject({ outcome: PAID });
    expect(await finish('repairing-pending', 500)).toEqual({ released: true, repeated: false });
    await forgetAll();
    expect(await serving.quota.renewLeases({ leases: [lease('repairing-pending', 500, true)] })).toEqual({ unknownRequestIds: [] });

    // The next request: billing-service's charged total (5,000) lacks the 3,000 waiting, so it is not the line's.
    expect(await serving.quota.admit(admitRequest(account, 'repairing-next'))).toMatchObject({ outcome: PAID });
    expect(await redis.hmget(keysOf(account).credit, 'gr', 'ch', 'hd')).toEqual([null, '3000', '5000']);
    expect(await audit()).toMatchObject({ violations: [], repairingLines: [expect.objectContaining({ accountId: account })] });

    const again = await stack.replica({ REDIS_KEY_PREFIX: prefix, QUOTA_KEY_LAYOUT: layout });
    await stack.expectEventually(async () => (await stack.ledger('repairing-pending')).length, 1);
    await stack.stopReplica(again);
    expect((await audit()).violations).toEqual([]);
    // With no bill waiting, the next request's line extension is the line's: charged 8,000, as billing-service has it.
    expect(await serving.quota.admit(admitRequest(account, 'repairing-after'))).toMatchObject({ outcome: PAID });
    expect(await redis.hget(keysOf(account).credit, 'ch')).toBe('8000');
    expect(await audit()).toMatchObject({ violations: [], repairingLines: [] });
  });

  it('finds nothing wrong from the loss until the line is repaired, and names the line as being repaired meanwhile', async () => {
    for (const requestId of ['pending', 'running'])
      expect(await serving.quota.admit(admitRequest(account, requestId))).toMatchObject({ outcome: PAID });
    // The operator took the unheld line back: billing-service's returned total is 90,000.
    expect(await serving.quota.returnCreditLine({ accountId: account })).toEqual({ returnedMicroLyd: 90_000, heldMicroLyd: 10_000 });
    // 1,000 prompt + 500 completion tokens: 3,000, its bill waiting in the outbox.
    expect(await finish('pending', 500)).toEqual({ released: true, repeated: false });
    expect(await audit()).toMatchObject({ violations: [], repairingLines: [] });
    expect(await stack.ledger('pending')).toEqual([]);

    await forgetAll();
    // The edge's renewals: the finished request's final bill (queued again), the running request's lease (held again).
    expect(await serving.quota.renewLeases({ leases: [lease('pending', 500, true), lease('running', 250)] })).toEqual({
      unknownRequestIds: [],
    });
    expect(await redis.hmget(keysOf(account).credit, 'ch', 'hd')).toEqual(['3000', '5000']);
    const repairing = [expect.objectContaining({ accountId: account })];
    expect(await audit()).toMatchObject({ violations: [], repairingLines: repairing });

    // Another replica delivers the bill, repairs the line once its bills are applied (it looks
    // every second) and gives back its unheld part once idle (2 s).
    await stack.replica({
      REDIS_KEY_PREFIX: prefix,
      QUOTA_KEY_LAYOUT: layout,
      CREDIT_LINE_IDLE_SECONDS: '2',
      CREDIT_LINE_RETURN_INTERVAL_MS: '50',
    });
    await stack.expectEventually(
      () => stack.ledger('pending'),
      [{ amount: 3000, paid: true, estimated: false, prompt: 1000, completion: 500 }],
    );
    expect((await audit()).violations).toEqual([]);
    await stack.expectEventually(async () => (await redis.hget(keysOf(account).credit, 'gr')) !== null, true);
    expect(await audit()).toMatchObject({ violations: [], repairingLines: [] });

    expect(await finish('running', 250)).toEqual({ released: false, repeated: false });
    await stack.expectEventually(() => stack.line(account), {
      balance: 95_000,
      line: 0,
      granted: 100_000,
      charged: 5000,
      returned: 95_000,
    });
    expect(await audit()).toMatchObject({ violations: [], repairingLines: [] });
  });
});
