import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { quotaV1 } from '@gw/contracts';
import { redisKeys } from '../src/store/redis/redis-keys';
import { AdmissionStack, admitRequest, awayFromMinuteEnd, DEADLINE_MS, QuotaReplica } from './admission-stack';

const Outcome = quotaV1.AdmitOutcome;
const SENT = 200;

/** The largest value `read` gave while `work` ran, read as often as Redis answers. */
async function highest(read: () => Promise<number>, work: () => Promise<unknown>): Promise<number> {
  let max = 0;
  let running = true;
  const sampling = (async () => {
    while (running) max = Math.max(max, await read());
  })();
  try {
    await work();
  } finally {
    running = false;
    await sampling;
  }
  return Math.max(max, await read());
}

/**
 * The limits and docs/architecture.md#credit-lines under load: 200 Admits of one account at once,
 * half on each of two quota-service replicas (as two edges send them, on EdgeCalls), with a real
 * billing-service extending the line as the first of them find it short.
 */
describe('200 Admits of one account at once, on two quota-service replicas', () => {
  const stack = new AdmissionStack();
  let replicas: QuotaReplica[];
  let redis: Redis;
  let account: string;
  const keys = () => redisKeys('account', stack.redis.keyPrefix).account(account);
  const admitAll = (model: string, onPaid: (replica: QuotaReplica, requestId: string) => Promise<unknown> = async () => undefined) =>
    Promise.all(
      Array.from({ length: SENT }, async (_, i) => {
        const replica = replicas[i % 2];
        const requestId = `req_${i}`;
        const answer = await replica.edge.call({ $case: 'admit', value: admitRequest(account, requestId, { model }) }, DEADLINE_MS);
        if (answer?.$case !== 'admit') throw new Error('not an Admit answer');
        if (answer.value.outcome === Outcome.ADMIT_OUTCOME_PAID) await onPaid(replica, requestId);
        return answer.value;
      }),
    );
  const tally = (answers: quotaV1.AdmitResponse[]) => {
    const of = (outcome: quotaV1.AdmitOutcome) => answers.filter((a) => a.outcome === outcome).length;
    return {
      paid: of(Outcome.ADMIT_OUTCOME_PAID),
      noPlace: of(Outcome.ADMIT_OUTCOME_NO_PLACE),
      notCovered: of(Outcome.ADMIT_OUTCOME_NOT_COVERED),
      rateLimited: of(Outcome.ADMIT_OUTCOME_RATE_LIMITED),
    };
  };
  /** Exactly 30 counted: the answers that were allowed carry each Remaining from 29 down to 0 once. */
  const expectThirtyCounted = (answers: quotaV1.AdmitResponse[]) => {
    const remaining = answers.filter((a) => a.count?.allowed).map((a) => a.count?.remaining ?? -1);
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(answers.filter((a) => !a.count?.allowed)).toHaveLength(SENT - 30);
  };

  beforeAll(async () => {
    await stack.start();
    replicas = [await stack.replica(), await stack.replica()];
    redis = new Redis(stack.redis.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await stack.stop();
  });
  beforeEach(async () => {
    account = `acct_${randomUUID()}`;
    await awayFromMinuteEnd();
  });

  it('counts exactly 30 and never has more than 3 places taken, however the requests finish meanwhile', async () => {
    await stack.addBalance(account, 1_000_000);
    const finish = (replica: QuotaReplica, requestId: string) =>
      replica.edge.call(
        {
          $case: 'finishRequest',
          value: {
            accountId: account,
            requestId,
            model: 'vendor-v4-flash',
            payment: quotaV1.Payment.PAYMENT_PAID,
            promptTokens: 100,
            completionTokens: 50,
            usageEstimated: false,
            hold: { amountMicroLyd: 5000, inputMicroLydPerMillion: 1_000_000, outputMicroLydPerMillion: 4_000_000 },
            admitted: true,
          },
        },
        DEADLINE_MS,
      );
    let answers: quotaV1.AdmitResponse[] = [];
    const places = await highest(
      () => redis.hlen(keys().places),
      async () => {
        answers = await admitAll('vendor-v4-flash', finish);
      },
    );
    expectThirtyCounted(answers);
    const { paid, noPlace, notCovered, rateLimited } = tally(answers);
    expect({ notCovered, rateLimited, placedOrNot: paid + noPlace }).toEqual({ notCovered: 0, rateLimited: 170, placedOrNot: 30 });
    expect(paid).toBeGreaterThanOrEqual(3);
    expect(places).toBeLessThanOrEqual(3);
    console.info(`200 Admits, 2 replicas, finishing as they go: ${paid} paid, ${noPlace} no place, at most ${places} places taken at once`);
  });

  it('never holds more than the balance: with room for 2 worst cases, 2 are paid and 28 refused 402', async () => {
    await stack.addBalance(account, 50_000);
    let answers: quotaV1.AdmitResponse[] = [];
    const held = await highest(
      async () => Number((await redis.hget(keys().credit, 'hd')) ?? 0),
      async () => {
        answers = await admitAll('vendor-v4-pro');
      },
    );
    expectThirtyCounted(answers);
    expect(tally(answers)).toEqual({ paid: 2, noPlace: 0, notCovered: 28, rateLimited: 170 });
    expect(held).toBe(40_000);
    for (const refused of answers.filter((a) => a.outcome === Outcome.ADMIT_OUTCOME_NOT_COVERED)) {
      expect(refused).toMatchObject({ balanceMicroLyd: 50_000, requiredMicroLyd: 60_000 });
    }
    expect(await stack.line(account)).toEqual({ balance: 50_000, line: 50_000, granted: 50_000, charged: 0, returned: 0 });
  });
});
