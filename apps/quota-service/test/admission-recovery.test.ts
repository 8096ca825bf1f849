import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import Redis from 'ioredis';
import { quotaV1 } from '@gw/contracts';
import { KeyLayout, redisKeys } from '../src/store/redis/redis-keys';
import { AdmissionStack, admitRequest, QuotaReplica } from './admission-stack';

const { ADMIT_OUTCOME_PAID: PAID } = quotaV1.AdmitOutcome;
const HOLD = { amountMicroLyd: 5000, inputMicroLydPerMillion: 1_000_000, outputMicroLydPerMillion: 4_000_000 };

/**
 * The ends of admitted requests that the edge does not bring (a lapse, a lease Redis lost) and the
 * credit line's way back to billing-service (the operator's ReturnCreditLine, the idle timer), with
 * a real billing-service on Postgres; the loops that find them (reaper, forwarder, idle lines) walk
 * the one set of global keys of the account layout, and every shard of the shard layout.
 */
describe.each(['account', 'shard'] as KeyLayout[])(
  'Admitted requests without their edge, and credit lines given back (%s layout)',
  (layout) => {
    const stack = new AdmissionStack();
    const keysOf = (accountId: string) => redisKeys(layout, stack.redis.keyPrefix).account(accountId);
    let replica: QuotaReplica;
    let redis: Redis;
    let account: string;
    const admit = (requestId: string): Promise<quotaV1.AdmitResponse> => replica.quota.admit(admitRequest(account, requestId));
    const { END_REASON_COMPLETE, END_REASON_CALLER_LEFT } = quotaV1.EndReason;
    const finish = (requestId: string, completionTokens: number, endReason = END_REASON_COMPLETE): Promise<quotaV1.FinishRequestResponse> =>
      replica.quota.finishRequest({
        accountId: account,
        requestId,
        model: 'vendor-v4-flash',
        payment: quotaV1.Payment.PAYMENT_PAID,
        promptTokens: 1000,
        completionTokens,
        usageEstimated: false,
        hold: HOLD,
        admitted: true,
        endReason,
      });
    const lease = (requestId: string, completionTokens: number): quotaV1.Lease => ({
      accountId: account,
      requestId,
      model: 'vendor-v4-flash',
      payment: quotaV1.Payment.PAYMENT_PAID,
      promptTokens: 1000,
      completionTokens,
      hold: HOLD,
      maxTokens: 1000,
    });
    const renew = (...leases: quotaV1.Lease[]): Promise<quotaV1.RenewLeasesResponse> => replica.quota.renewLeases({ leases });
    const held = async () => Number((await redis.hget(keysOf(account).credit, 'hd')) ?? 0);
    /**
     * The replica whose lines idle 2 s, on keys of its own. One only: a replica on other keys over
     * the same billing-service would take every line its keys lack for lost, and give it back.
     */
    const LINES_PREFIX = () => `${stack.redis.keyPrefix}lines:`;
    let lines: Promise<QuotaReplica> | undefined;
    const linesReplica = () =>
      (lines ??= stack.replica({
        REDIS_KEY_PREFIX: LINES_PREFIX(),
        QUOTA_KEY_LAYOUT: layout,
        CREDIT_LINE_IDLE_SECONDS: '2',
        CREDIT_LINE_RETURN_INTERVAL_MS: '50',
      }));
    const addBalance = (amountMicroLyd: number) => stack.billing.addBalance({ accountId: account, amountMicroLyd });
    /** Finishes a paid request admitted by Admit, 1,000 prompt tokens used. */
    const finishPaid = (quota: QuotaReplica['quota'], requestId: string) =>
      quota.finishRequest({
        accountId: account,
        requestId,
        model: 'vendor-v4-flash',
        payment: quotaV1.Payment.PAYMENT_PAID,
        promptTokens: 1000,
        completionTokens: 0,
        usageEstimated: false,
        hold: HOLD,
        admitted: true,
      });

    beforeAll(async () => {
      await stack.start();
      // Leases lapse 300 ms after their last renewal; the reaper looks every 75 ms.
      replica = await stack.replica({ LEASE_TTL_MS: '300', LAPSE_GRACE_MS: '2000', QUOTA_KEY_LAYOUT: layout });
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

    it("bills an admitted request whose lease lapsed once, from its last renewal at its hold's prices, estimated; its edge's real bill, late, replaces the estimate", async () => {
      for (const requestId of ['lapsing', 'lapsing-alone']) expect(await admit(requestId)).toMatchObject({ outcome: PAID });
      // 1,000 prompt + 250 completion tokens so far: 2,000 micro-LYD.
      expect(await renew(lease('lapsing', 250), lease('lapsing-alone', 250))).toEqual({ unknownRequestIds: [] });
      for (const requestId of ['lapsing', 'lapsing-alone']) {
        await stack.expectEventually(
          () => stack.ledger(requestId),
          [{ amount: 2000, paid: true, estimated: true, prompt: 1000, completion: 250 }],
        );
      }
      expect(await held()).toBe(0);
      for (const requestId of ['lapsing', 'lapsing-alone']) expect(await stack.endReason(requestId)).toBe('recovered');
      // The edge was only stalled: its real usage, 400 completion tokens (2,600), comes after all.
      expect(await finish('lapsing', 400)).toEqual({ released: false, repeated: true });
      await stack.expectEventually(
        () => stack.ledger('lapsing'),
        [{ amount: 2600, paid: true, estimated: false, prompt: 1000, completion: 400 }],
      );
      expect(await stack.endReason('lapsing')).toBe('complete');
      expect(await finish('lapsing', 400)).toEqual({ released: false, repeated: true });
      // Nothing to wait for: a while passes in which no second bill may arrive.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await stack.ledger('lapsing-alone')).toHaveLength(1);
      expect(await stack.line(account)).toMatchObject({ balance: 100_000 - 2600 - 2000, charged: 4600 });
    });

    it("recreates the lease of an admission Redis lost from the edge's renewal, and bills it once", async () => {
      for (const requestId of ['lost-then-lapsed', 'lost-then-finished']) expect(await admit(requestId)).toMatchObject({ outcome: PAID });
      // A failover that lost the admissions' writes: no lease, no hold, no place.
      const keys = keysOf(account);
      const leases = keys.shard.leases;
      for (const requestId of ['lost-then-lapsed', 'lost-then-finished']) {
        await redis
          .multi()
          .hdel(leases.data, requestId)
          .zrem(leases.lapse, requestId)
          .hdel(keys.admissions, requestId)
          .hdel(keys.previousReleaseHolds, requestId)
          .hdel(keys.places, requestId)
          .exec();
      }
      await redis.hset(keys.credit, 'hd', 0);
      expect(await renew(lease('lost-then-lapsed', 250), lease('lost-then-finished', 250))).toEqual({ unknownRequestIds: [] });
      expect(await finish('lost-then-finished', 500)).toEqual({ released: false, repeated: false });
      await stack.expectEventually(
        () => stack.ledger('lost-then-lapsed'),
        [{ amount: 2000, paid: true, estimated: true, prompt: 1000, completion: 250 }],
      );
      await stack.expectEventually(
        () => stack.ledger('lost-then-finished'),
        [{ amount: 3000, paid: true, estimated: false, prompt: 1000, completion: 500 }],
      );
      expect(await renew(lease('lost-then-lapsed', 250), lease('lost-then-finished', 500))).toEqual({
        unknownRequestIds: ['lost-then-lapsed', 'lost-then-finished'],
      });
      expect(await held()).toBe(0);
      expect(await stack.line(account)).toMatchObject({ balance: 95_000, charged: 5000 });
    });

    it('keeps a final bill until billing-service applied it, and queues it again when Redis forgot the request, billed once', async () => {
      const final = (requestId: string, completionTokens: number): quotaV1.Lease => ({
        ...lease(requestId, completionTokens),
        final: true,
        endReason: END_REASON_CALLER_LEFT,
      });
      /** Redis lost every trace of the account's requests: restarted empty, or failed over. */
      const forget = async () => {
        const keys = keysOf(account);
        await redis.del(
          keys.finished,
          keys.unbilled,
          keys.admissions,
          keys.previousReleaseHolds,
          keys.places,
          keys.credit,
          keys.usageToday,
          keys.usageTotal,
        );
      };
      for (const requestId of ['applied', 'forgotten-applied', 'forgotten-unbilled'])
        expect(await admit(requestId)).toMatchObject({ outcome: PAID });
      for (const requestId of ['applied', 'forgotten-applied'])
        expect(await finish(requestId, 500)).toEqual({ released: true, repeated: false });
      for (const requestId of ['applied', 'forgotten-applied']) {
        await stack.expectEventually(
          () => stack.ledger(requestId),
          [{ amount: 3000, paid: true, estimated: false, prompt: 1000, completion: 500 }],
        );
      }
      // Applied once the forwarder has billing-service's answer, a moment after the ledger row.
      await stack.expectEventually(async () => (await renew(final('applied', 500))).unknownRequestIds, ['applied']);
      // The edge had the finish of 'forgotten-unbilled' land, then Redis lost everything of it.
      await redis
        .multi()
        .hdel(keysOf(account).shard.leases.data, 'forgotten-unbilled')
        .zrem(keysOf(account).shard.leases.lapse, 'forgotten-unbilled')
        .exec();
      await forget();
      // This replica's outbox acknowledged the bill of 'forgotten-applied': applied, whatever Redis forgot.
      expect(await renew(final('forgotten-applied', 500))).toEqual({ unknownRequestIds: ['forgotten-applied'] });
      // Another replica asks Redis, which has no trace of it: finished again from its final lease, billed once.
      const other = await stack.replica({ LEASE_TTL_MS: '300', LAPSE_GRACE_MS: '2000', QUOTA_KEY_LAYOUT: layout });
      try {
        expect(await other.quota.renewLeases({ leases: [final('forgotten-applied', 500)] })).toEqual({ unknownRequestIds: [] });
        await stack.expectEventually(
          async () => (await other.quota.renewLeases({ leases: [final('forgotten-applied', 500)] })).unknownRequestIds,
          ['forgotten-applied'],
        );
      } finally {
        await stack.stopReplica(other);
      }
      expect(await renew(final('forgotten-unbilled', 250))).toEqual({ unknownRequestIds: [] });
      await stack.expectEventually(
        () => stack.ledger('forgotten-unbilled'),
        [{ amount: 2000, paid: true, estimated: false, prompt: 1000, completion: 250 }],
      );
      // Queued again from the edge's final lease, with why the request ended.
      expect(await stack.endReason('forgotten-unbilled')).toBe('caller-left');
      await stack.expectEventually(
        async () => (await renew(final('forgotten-applied', 500), final('forgotten-unbilled', 250))).unknownRequestIds.sort(),
        ['forgotten-applied', 'forgotten-unbilled'],
      );
      expect(await stack.ledger('forgotten-applied')).toEqual([
        { amount: 3000, paid: true, estimated: false, prompt: 1000, completion: 500 },
      ]);
      expect(await stack.line(account)).toMatchObject({ balance: 100_000 - 3000 - 3000 - 2000, charged: 8000 });
    });

    it('gives the unheld line back for the operator, so that a negative balance add can take it', async () => {
      expect(await admit('running')).toMatchObject({ outcome: PAID });
      await expect(addBalance(-50_000)).rejects.toMatchObject({ code: status.FAILED_PRECONDITION });
      expect(await replica.quota.returnCreditLine({ accountId: account })).toEqual({ returnedMicroLyd: 95_000, heldMicroLyd: 5000 });
      expect(await stack.line(account)).toEqual({ balance: 100_000, line: 5000, granted: 100_000, charged: 0, returned: 95_000 });
      expect(await addBalance(-50_000)).toEqual({ balanceMicroLyd: 50_000 });
      // What the running request holds stays lent: the balance cannot go below it.
      await expect(addBalance(-45_001)).rejects.toMatchObject({ code: status.FAILED_PRECONDITION });
      expect(await finish('running', 500)).toEqual({ released: true, repeated: false });
      await stack.expectEventually(() => stack.line(account), {
        balance: 47_000,
        line: 2000,
        granted: 100_000,
        charged: 3000,
        returned: 95_000,
      });
      // The next request needs more than the 2,000 left of the line: billing lends again.
      expect(await admit('after')).toMatchObject({ outcome: PAID });
      expect(await stack.line(account)).toMatchObject({ line: 47_000, granted: 145_000 });
    });

    it('gives back the line of an account idle for CREDIT_LINE_IDLE_SECONDS, through the outbox', async () => {
      const idle = await linesReplica();
      const admitted = await idle.quota.admit(admitRequest(account, 'idle-1'));
      expect(admitted).toMatchObject({ outcome: PAID });
      await finishPaid(idle.quota, 'idle-1');
      await stack.expectEventually(() => stack.line(account), {
        balance: 99_000,
        line: 0,
        granted: 100_000,
        charged: 1000,
        returned: 99_000,
      });
      expect(await addBalance(-99_000)).toEqual({ balanceMicroLyd: 0 });
    });

    it('gives back, once idle, a line billing-service lent that Redis lost, keeping the part a request still running holds', async () => {
      const lost = await linesReplica();
      const keys = redisKeys(layout, LINES_PREFIX()).account(account);
      const quota = lost.quota;
      for (const requestId of ['lost-done', 'lost-running'])
        expect(await quota.admit(admitRequest(account, requestId))).toMatchObject({ outcome: PAID });
      await finishPaid(quota, 'lost-done');
      await stack.expectEventually(
        () => stack.ledger('lost-done'),
        [{ amount: 1000, paid: true, estimated: false, prompt: 1000, completion: 0 }],
      );
      // Redis lost everything of the account: its line, holds, leases, and its place among the active lines.
      await redis
        .multi()
        .del(keys.credit, keys.admissions, keys.previousReleaseHolds, keys.places, keys.finished)
        .zrem(keys.shard.activeLines, account)
        .hdel(keys.shard.leases.data, 'lost-running')
        .zrem(keys.shard.leases.lapse, 'lost-running')
        .exec();
      // The running request's next renewal holds its part again.
      expect(await quota.renewLeases({ leases: [lease('lost-running', 0)] })).toEqual({
        unknownRequestIds: [],
      });
      expect(Number(await redis.hget(keys.credit, 'hd'))).toBe(5000);
      // Adopted, then given back once idle: all but what the running request holds.
      await stack.expectEventually(() => stack.line(account), {
        balance: 99_000,
        line: 5000,
        granted: 100_000,
        charged: 1000,
        returned: 94_000,
      });
      await quota.finishRequest({
        accountId: account,
        requestId: 'lost-running',
        model: 'vendor-v4-flash',
        payment: quotaV1.Payment.PAYMENT_PAID,
        promptTokens: 1000,
        completionTokens: 500,
        usageEstimated: false,
        hold: HOLD,
        admitted: true,
      });
      await stack.expectEventually(() => stack.line(account), {
        balance: 96_000,
        line: 0,
        granted: 100_000,
        charged: 4000,
        returned: 96_000,
      });
    });
  },
);
