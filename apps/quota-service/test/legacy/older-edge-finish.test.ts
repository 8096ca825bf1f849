import { status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { eventually, freePort } from '@gw/testing';
import { outboxDeliveries } from '../../src/quota-metrics';
import { quotaBesideBilling } from '../quota-beside-billing';

const { PAYMENT_PAID, PAYMENT_FREE, PAYMENT_UNSPECIFIED } = quotaV1.Payment;
const Refusal = quotaV1.FreeRefusal;
/** Deliveries of `kind` this process's replicas failed and kept to try again. */
const outboxRetries = async (kind: string) =>
  (await outboxDeliveries.get()).values.find((v) => v.labels.kind === kind && v.labels.outcome === 'retry')?.value ?? 0;

describe("quota-service over gRPC: the older release's free requests and finishes, billed through the outbox", () => {
  const stack = quotaBesideBilling();
  const { startApp } = stack;
  let seq = 0;
  const ledger = async (requestId: string) =>
    (
      await stack.db.query(
        'SELECT account_id, amount_micro::int AS amount, paid, prompt_tokens::int AS prompt FROM billing.ledger WHERE request_id = $1',
        [requestId],
      )
    ).rows;
  /** Waits until the request's ledger rows are `expected`. */
  const billedAs = async <T>(read: () => Promise<T>, expected: T) =>
    expect(await eventually(read, (value) => JSON.stringify(value) === JSON.stringify(expected), { intervalMs: 20 })).toEqual(expected);
  const freeRequest = (accountId: string, overrides: Partial<quotaV1.ReserveFreeRequest> = {}): quotaV1.ReserveFreeRequest => ({
    accountId,
    requestId: `req_${++seq}`,
    model: 'vendor-v4-flash',
    thinking: false,
    textPromptTokens: 1000,
    imageCount: 0,
    newMessageTokens: 10,
    jsonBytes: 2000,
    maxTokens: 8192,
    ...overrides,
  });

  it('grants a free request with max_tokens 2,048, refuses with the cause, and settles it with FinishRequest', async () => {
    const { quota } = await startApp();
    const reserve = (req: quotaV1.ReserveFreeRequest) => quota.reserveFree(req);
    const accountId = `acct_free_${Date.now()}`;
    const request = freeRequest(accountId);
    expect(await reserve(request)).toEqual({
      granted: true,
      refusal: Refusal.FREE_REFUSAL_UNSPECIFIED,
      maxTokens: 2048,
      reservedTokens: 1100 + 2048,
    });
    expect(await reserve(freeRequest(accountId, { model: 'vendor-v4-pro' }))).toEqual({
      granted: false,
      refusal: Refusal.FREE_REFUSAL_MODEL,
      maxTokens: 0,
      reservedTokens: 0,
    });
    expect(await reserve(freeRequest(accountId, { thinking: true }))).toMatchObject({ refusal: Refusal.FREE_REFUSAL_THINKING });
    expect(await reserve(freeRequest(accountId, { jsonBytes: 320_001 }))).toMatchObject({
      refusal: Refusal.FREE_REFUSAL_REQUEST_TOO_LARGE,
    });
    await expect(reserve(freeRequest(accountId, { maxTokens: 0 }))).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });

    await quota.acquirePlace({ accountId, requestId: request.requestId, lease: undefined });
    const finish = {
      accountId,
      requestId: request.requestId,
      model: 'vendor-v4-flash',
      payment: PAYMENT_FREE,
      promptTokens: 1000,
      completionTokens: 234,
      usageEstimated: false,
    };
    expect(await quota.finishRequest(finish)).toEqual({ released: true, repeated: false });
    expect(await quota.finishRequest(finish)).toEqual({ released: false, repeated: true });
    expect(await quota.getUsage({ accountId })).toEqual({ todayTokens: 1234, totalTokens: 1234 });
    await billedAs(() => ledger(request.requestId), [{ account_id: accountId, amount: 0, paid: false, prompt: 1000 }]);
  });

  it('settles a paid request in billing-service once, from the one FinishRequest', async () => {
    const { quota } = await startApp();
    const accountId = `acct_paid_${Date.now()}`;
    const requestId = `req_${++seq}`;
    await stack.billing.addBalance({ accountId, amountMicroLyd: 100_000 });
    await stack.billing.authorize({ requestId, accountId, model: 'vendor-v4-flash', promptTokens: 1000, maxTokens: 1000 });
    const finish = {
      accountId,
      requestId,
      model: 'vendor-v4-flash',
      payment: PAYMENT_PAID,
      promptTokens: 1000,
      completionTokens: 250,
      usageEstimated: true,
    };
    await quota.finishRequest(finish);
    await quota.finishRequest(finish);
    await billedAs(() => ledger(requestId), [{ account_id: accountId, amount: 2000, paid: true, prompt: 1000 }]);
    expect(await stack.billing.getBalance({ accountId })).toEqual({ balanceMicroLyd: 98_000 });
    await expect(quota.finishRequest({ ...finish, payment: PAYMENT_UNSPECIFIED })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
  });

  it('finishes several requests in one FinishRequests, each on its own: a bad one fails alone, the rest are billed once', async () => {
    const { quota } = await startApp();
    const accountId = `acct_many_${Date.now()}`;
    const requestIds = [`req_${++seq}`, `req_${++seq}`];
    await stack.billing.addBalance({ accountId, amountMicroLyd: 100_000 });
    for (const requestId of requestIds) {
      await quota.acquirePlace({ accountId, requestId, lease: undefined });
      await stack.billing.authorize({ requestId, accountId, model: 'vendor-v4-flash', promptTokens: 1000, maxTokens: 1000 });
    }
    const finish = (requestId: string) => ({
      accountId,
      requestId,
      model: 'vendor-v4-flash',
      payment: PAYMENT_PAID,
      promptTokens: 1000,
      completionTokens: 250,
      usageEstimated: false,
    });
    const requests = [finish(requestIds[0]), { ...finish(`req_${++seq}`), payment: PAYMENT_UNSPECIFIED }, finish(requestIds[1])];
    const first = await quota.finishRequests({ requests });
    expect(first.outcomes).toEqual([
      { finished: { released: true, repeated: false }, errorCode: 0, errorMessage: '' },
      { finished: undefined, errorCode: status.INVALID_ARGUMENT, errorMessage: expect.any(String) },
      { finished: { released: true, repeated: false }, errorCode: 0, errorMessage: '' },
    ]);
    const again = await quota.finishRequests({ requests: [requests[0], requests[2]] });
    expect(again.outcomes.map((o) => o.finished)).toEqual([
      { released: false, repeated: true },
      { released: false, repeated: true },
    ]);
    for (const requestId of requestIds)
      await billedAs(() => ledger(requestId), [{ account_id: accountId, amount: 2000, paid: true, prompt: 1000 }]);
    expect(await stack.billing.getBalance({ accountId })).toEqual({ balanceMicroLyd: 96_000 });
    const tooMany = Array.from({ length: 257 }, () => requests[0]);
    await expect(quota.finishRequests({ requests: tooMany })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
  });

  it('keeps a bill in Redis while billing-service is unreachable, and a restarted quota-service delivers it', async () => {
    // A key space of its own, so that no replica started by another test delivers the bill.
    const REDIS_KEY_PREFIX = `${stack.redis.keyPrefix}outage:`;
    const { app, quota } = await startApp({ REDIS_KEY_PREFIX, BILLING_ADDR: `127.0.0.1:${await freePort()}` });
    const accountId = `acct_outage_${Date.now()}`;
    const requestId = `req_${++seq}`;
    await stack.billing.addBalance({ accountId, amountMicroLyd: 100_000 });
    await stack.billing.authorize({ requestId, accountId, model: 'vendor-v4-flash', promptTokens: 1000, maxTokens: 1000 });
    const finish = {
      accountId,
      requestId,
      model: 'vendor-v4-flash',
      payment: PAYMENT_PAID,
      promptTokens: 3000,
      completionTokens: 0,
      usageEstimated: false,
    };
    const retries = () => outboxRetries('settle');
    const before = await retries();
    await quota.finishRequest(finish);
    // Its replica tried to deliver the bill to the billing-service it cannot reach, and kept it.
    await eventually(retries, (n) => n > before);
    await app.stop();
    expect(await ledger(requestId)).toEqual([]);

    await startApp({ REDIS_KEY_PREFIX });
    await billedAs(() => ledger(requestId), [{ account_id: accountId, amount: 3000, paid: true, prompt: 3000 }]);
  });
});
