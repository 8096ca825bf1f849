import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { AdmissionStack, admitRequest, awayFromMinuteEnd, counterValue, DEADLINE_MS, QuotaReplica } from './admission-stack';
import { RedisCommandMeter } from './redis-command-meter';

const { ADMIT_OUTCOME_PAID: PAID, ADMIT_OUTCOME_FREE: FREE, ADMIT_OUTCOME_NOT_COVERED: NOT_COVERED } = quotaV1.AdmitOutcome;
const { PAYMENT_PAID, PAYMENT_FREE } = quotaV1.Payment;
const FLASH_HOLD = { amountMicroLyd: 5000, inputMicroLydPerMillion: 1_000_000, outputMicroLydPerMillion: 4_000_000 };

describe('Admit and FinishRequest over gRPC, with billing-service and Postgres: the paid path', () => {
  const stack = new AdmissionStack();
  let replica: QuotaReplica;
  let meter: RedisCommandMeter;
  let account: string;
  const admit = (req: quotaV1.AdmitRequest, on = replica) => on.quota.admit(req);
  const finish = (req: quotaV1.FinishRequestRequest) => replica.quota.finishRequest(req);
  const finished = (
    requestId: string,
    promptTokens: number,
    completionTokens: number,
    hold?: quotaV1.Hold,
  ): quotaV1.FinishRequestRequest => ({
    accountId: account,
    requestId,
    model: 'vendor-v4-flash',
    payment: hold ? PAYMENT_PAID : PAYMENT_FREE,
    promptTokens,
    completionTokens,
    usageEstimated: false,
    hold,
    admitted: true,
  });

  beforeAll(async () => {
    await stack.start();
    replica = await stack.replica();
    meter = await RedisCommandMeter.open(stack.redis.url);
  });
  afterAll(async () => {
    await meter?.close();
    await stack.stop();
  });
  beforeEach(async () => {
    account = `acct_${randomUUID()}`;
    await awayFromMinuteEnd();
  });

  it("carries the caller's key from Admit to the ledger; an older edge's Admit, without one, bills none", async () => {
    await stack.addBalance(account, 100_000);
    await admit(admitRequest(account, 'keyed', { keyId: 'key_0a1b2c' }));
    await admit(admitRequest(account, 'older', { keyId: '' }));
    await finish(finished('keyed', 1000, 500, FLASH_HOLD));
    await finish(finished('older', 1000, 500, FLASH_HOLD));
    await stack.expectEventually(() => stack.ledgerKey('keyed'), 'key_0a1b2c');
    await stack.expectEventually(() => stack.ledgerKey('older'), null);
    await expect(admit(admitRequest(account, 'odd', { keyId: 'key with spaces' }))).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
  });

  it('admits a paid request in one Redis round trip, finishes it in one, and asks billing-service nothing while the line covers it', async () => {
    await stack.addBalance(account, 100_000);
    const before = Date.now();
    const first = await admit(admitRequest(account, 'r1'));
    expect(first).toMatchObject({ outcome: PAID, count: { allowed: true, remaining: 29 }, hold: FLASH_HOLD });
    // Admitted at Redis' time (the same machine's clock here), which the edge carries back.
    expect(first.admittedAtMs).toBeGreaterThanOrEqual(before - 1000);
    expect(first.admittedAtMs).toBeLessThanOrEqual(Date.now() + 1000);
    const extensions = await counterValue('quota_credit_line_extensions_total');

    const admitted = await meter.measure(account, () => admit(admitRequest(account, 'r2')));
    expect(admitted.result).toMatchObject({ outcome: PAID, count: { remaining: 28 }, hold: FLASH_HOLD });
    expect(admitted.commands.roundTrips).toEqual(['evalsha']);
    expect(await counterValue('quota_credit_line_extensions_total')).toBe(extensions);

    // 1,000 prompt + 500 completion tokens cost 3,000 of the 5,000 held.
    const ended = await meter.measure(account, () => finish(finished('r2', 1000, 500, FLASH_HOLD)));
    expect(ended.result).toEqual({ released: true, repeated: false });
    expect(ended.commands.roundTrips).toEqual(['evalsha']);
    expect(await finish(finished('r2', 1000, 500, FLASH_HOLD))).toEqual({ released: false, repeated: true });
    // A reply longer than the hold's worst case is charged the hold, never more.
    await finish(finished('r1', 1000, 5000, FLASH_HOLD));
    await stack.expectEventually(() => stack.ledger('r2'), [{ amount: 3000, paid: true, estimated: false, prompt: 1000, completion: 500 }]);
    await stack.expectEventually(
      () => stack.ledger('r1'),
      [{ amount: 5000, paid: true, estimated: false, prompt: 1000, completion: 5000 }],
    );
    expect(await stack.line(account)).toEqual({ balance: 92_000, line: 92_000, granted: 100_000, charged: 8000, returned: 0 });
    console.info(
      `paid Admit: ${admitted.commands.roundTrips.length} round trip, ${admitted.commands.scriptCommands.length} commands in it; Finish: ${ended.commands.roundTrips.length} round trip, ${ended.commands.scriptCommands.length} commands`,
    );
  });

  it('refuses finishes that restate the terms otherwise (prices 0, hold 1, free) with INVALID_ARGUMENT, and bills the admitted terms', async () => {
    await stack.addBalance(account, 100_000);
    const forged: quotaV1.FinishRequestRequest[] = [
      finished('zero-prices', 1000, 500, { ...FLASH_HOLD, inputMicroLydPerMillion: 0, outputMicroLydPerMillion: 0 }),
      finished('hold-one', 1000, 500, { ...FLASH_HOLD, amountMicroLyd: 1 }),
      finished('as-free', 1000, 500),
    ];
    for (const req of forged) {
      expect(await admit(admitRequest(account, req.requestId))).toMatchObject({ outcome: PAID });
      await expect(finish(req)).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    }
    // The edge's true finishes, the hold left out or restated as Admit answered it: 3,000 each.
    await finish({ ...finished('zero-prices', 1000, 500), payment: PAYMENT_PAID });
    await finish(finished('hold-one', 1000, 500, FLASH_HOLD));
    await finish(finished('as-free', 1000, 500, FLASH_HOLD));
    for (const requestId of ['zero-prices', 'hold-one', 'as-free'])
      await stack.expectEventually(
        () => stack.ledger(requestId),
        [{ amount: 3000, paid: true, estimated: false, prompt: 1000, completion: 500 }],
      );
  });

  it('tells what running paid requests hold (GetHeld): their worst cases while they run, none once finished; free ones hold nothing', async () => {
    const held = (accountId = account) => replica.quota.getHeld({ accountId });
    expect(await held()).toEqual({ heldMicroLyd: 0 });
    await stack.addBalance(account, 12_000);
    expect(await admit(admitRequest(account, 'h1'))).toMatchObject({ outcome: PAID });
    expect(await admit(admitRequest(account, 'h2'))).toMatchObject({ outcome: PAID });
    expect(await admit(admitRequest(account, 'h3'))).toMatchObject({ outcome: FREE });
    expect(await held()).toEqual({ heldMicroLyd: 10_000 });
    await finish(finished('h1', 1000, 500, FLASH_HOLD));
    expect(await held()).toEqual({ heldMicroLyd: 5000 });
    await finish(finished('h2', 10, 10, FLASH_HOLD));
    await finish(finished('h3', 10, 10));
    expect(await held()).toEqual({ heldMicroLyd: 0 });
    await expect(held('')).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
  });

  it('answers a 402 whose required is exact, and lets the next request through once the balance is topped up', async () => {
    await stack.addBalance(account, 8000);
    expect(await admit(admitRequest(account, 'running'))).toMatchObject({ outcome: PAID });
    // vendor-v4-pro, 1,000 + 1,000 tokens: 20,000 held, beside the 5,000 the running request holds.
    const pro = (requestId: string) => admitRequest(account, requestId, { model: 'vendor-v4-pro' });
    expect(await admit(pro('p1'))).toMatchObject({
      outcome: NOT_COVERED,
      refusal: quotaV1.FreeRefusal.FREE_REFUSAL_MODEL,
      balanceMicroLyd: 8000,
      requiredMicroLyd: 25_000,
      count: { remaining: 28 },
    });
    await stack.addBalance(account, 25_000 - 8000 - 1);
    expect(await admit(pro('p2'))).toMatchObject({ outcome: NOT_COVERED, balanceMicroLyd: 24_999, requiredMicroLyd: 25_000 });
    const grown = await counterValue('quota_credit_line_extensions_total', { outcome: 'grown' });
    await stack.addBalance(account, 1);
    expect(await admit(pro('p3'))).toMatchObject({ outcome: PAID, count: { remaining: 26 }, hold: { amountMicroLyd: 20_000 } });
    expect(await counterValue('quota_credit_line_extensions_total', { outcome: 'grown' })).toBe(grown + 1);
  });

  it('runs a request the balance does not cover as free, its reply capped, and records it free', async () => {
    const free = await admit(admitRequest(account, 'f1', { maxTokens: 8192 }));
    expect(free).toMatchObject({ outcome: FREE, maxTokens: 2048, count: { remaining: 29 } });
    await finish(finished('f1', 1000, 300));
    await stack.expectEventually(() => stack.ledger('f1'), [{ amount: 0, paid: false, estimated: false, prompt: 1000, completion: 300 }]);
  });

  it('gives back all an Admit took when its edge never had the answer, and refuses a late Admit of the same id', async () => {
    await stack.addBalance(account, 10_000);
    expect(await admit(admitRequest(account, 'lost-answer'))).toMatchObject({ outcome: PAID });
    const abandon = { ...finished('lost-answer', 0, 0), payment: PAYMENT_PAID, admitted: false };
    expect(await finish(abandon)).toEqual({ released: true, repeated: false });
    // The whole balance is free again: 1,000 + 2,250 tokens hold 10,000.
    expect(await admit(admitRequest(account, 'whole', { maxTokens: 2250 }))).toMatchObject({
      outcome: PAID,
      hold: { amountMicroLyd: 10_000 },
    });
    await expect(admit(admitRequest(account, 'lost-answer'))).rejects.toMatchObject({ code: status.ABORTED });
    await finish({ ...abandon, requestId: 'never-arrived' });
    await expect(admit(admitRequest(account, 'never-arrived'))).rejects.toMatchObject({ code: status.ABORTED });
    expect(await admit(admitRequest(account, 'next', { model: 'vendor-v4-pro' }))).toMatchObject({ count: { remaining: 25 } });
    // Nothing to wait for: a while passes in which no bill of the lost answer may arrive.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await stack.ledger('lost-answer')).toEqual([]);
  });

  it('admits on EdgeCalls as the unary Admit does', async () => {
    await stack.addBalance(account, 10_000);
    expect(await replica.edge.call({ $case: 'admit', value: admitRequest(account, 'streamed') }, DEADLINE_MS)).toMatchObject({
      $case: 'admit',
      value: { outcome: PAID, hold: FLASH_HOLD },
    });
  });

  it('refuses a field past its bound with INVALID_ARGUMENT, counting nothing', async () => {
    await expect(admit(admitRequest(account, 'big', { promptTokens: 1_000_001 }))).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    await expect(admit(admitRequest(account, '', {}))).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(await admit(admitRequest(account, 'ok'))).toMatchObject({ count: { remaining: 29 } });
  });

  it("prices the next Admit on every replica with a price once billing-service's SetPrice returns", async () => {
    const other = await stack.replica();
    await stack.addBalance(account, 100_000);
    const setPrice = (output: number) =>
      stack.billing.setPrice({ price: { model: 'vendor-v4-flash', inputMicroLydPerMillion: 1_000_000, outputMicroLydPerMillion: output } });
    try {
      await setPrice(8_000_000);
      for (const [i, on] of [replica, other].entries()) {
        expect(await admit(admitRequest(account, `priced-${i}`), on)).toMatchObject({
          outcome: PAID,
          hold: { amountMicroLyd: 9000, outputMicroLydPerMillion: 8_000_000 },
        });
      }
    } finally {
      await setPrice(4_000_000);
    }
  });
});
