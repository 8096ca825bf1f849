import { status } from '@grpc/grpc-js';
import { MAX_BODY_BYTES, MAX_COMPLETION_TOKENS, MAX_ID_LENGTH, MAX_IMAGES, MAX_MODEL_ID_LENGTH, MAX_PROMPT_TOKENS } from '@gw/bounds';
import { billingV1, quotaV1 } from '@gw/contracts';
import { clientChain, createLogger, GrpcSecurity, RpcClient, rpcClient, RunningGrpcServer, startGrpcServer } from '@gw/service-kit';
import { createTestRedis, TestRedis, testTlsDir } from '@gw/testing';
import { loadConfig } from '../../src/config';
import { QuotaApp, startQuotaApp } from '../../src/quota-app';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const DEADLINE_MS = 3000;
const { PAYMENT_PAID } = quotaV1.Payment;
const mtls = (identity: string): GrpcSecurity => ({ kind: 'mtls', dir: testTlsDir(identity), refreshMs: 60_000 });
const id = (length: number, fill = 'i') => fill.repeat(length);
const invalid = { code: status.INVALID_ARGUMENT };

type Quota = RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;

/**
 * Every count and id quota.v1 takes has a bound (libs/bounds): just past it the call is refused
 * with INVALID_ARGUMENT and no counter, place, lease or reservation changes; at it, it is taken.
 * Each method is called by an identity that may call it, over mutual TLS.
 */
describe("quota.v1.Quota over gRPC: bounds of the older release's edge calls", () => {
  let redis: TestRedis;
  let app: QuotaApp;
  let edge: Quota;
  let chat: Quota;
  let ctl: Quota;
  let consoleQuota: Quota;
  let billing: RunningGrpcServer;
  let seq = 0;
  /** The free-tier changes billing-service's audit trail took; one whose reason is `trail down` it refuses. */
  const recorded: billingV1.RecordFreeTierChangeRequest[] = [];

  const newAccount = () => `acct_bounds_${process.pid}_${++seq}`;
  const usage = (accountId: string) => chat.getUsage({ accountId });
  const allowance = (accountId: string) => consoleQuota.getFreeAllowance({ accountId });
  const release = (req: quotaV1.ReleasePlaceRequest) => chat.releasePlace(req);
  const finish = (req: quotaV1.FinishRequestRequest) => edge.finishRequest(req);
  /** How many of the account's 3 places are free now (takes them, then gives them back without tokens). */
  const freePlaces = async (accountId: string) => {
    const probes = ['probe_1', 'probe_2', 'probe_3'];
    const granted = (await Promise.all(probes.map((requestId) => chat.acquirePlace({ accountId, requestId, lease: undefined })))).filter(
      (p) => p.granted,
    ).length;
    for (const requestId of probes) await release({ accountId, requestId, promptTokens: 0, completionTokens: 0 });
    return granted;
  };
  const lease = (accountId: string, requestId: string, overrides: Partial<quotaV1.Lease> = {}): quotaV1.Lease => ({
    accountId,
    requestId,
    model: 'vendor-v4-flash',
    payment: PAYMENT_PAID,
    promptTokens: 10,
    completionTokens: 0,
    ...overrides,
  });
  const finishRequest = (accountId: string, overrides: Partial<quotaV1.FinishRequestRequest> = {}): quotaV1.FinishRequestRequest => ({
    accountId,
    requestId: `req_${++seq}`,
    model: 'vendor-v4-flash',
    payment: PAYMENT_PAID,
    promptTokens: MAX_PROMPT_TOKENS,
    completionTokens: MAX_COMPLETION_TOKENS,
    usageEstimated: false,
    ...overrides,
  });

  beforeAll(async () => {
    redis = await createTestRedis();
    // billing-service as far as the operator's free-tier changes need it: its audit trail records each before it is made.
    const recordFreeTierChange = (
      { request }: { request: billingV1.RecordFreeTierChangeRequest },
      done: (err: Error | null, res?: billingV1.RecordFreeTierChangeResponse) => void,
    ) => {
      if (request.reason === 'trail down') return done(Object.assign(new Error('trail down'), { code: status.UNAVAILABLE }));
      done(null, { seq: recorded.push(request) });
    };
    billing = await startGrpcServer(
      { host: '127.0.0.1', port: 0, metricsPort: 0, security: mtls('billing-service'), maxConnectionAgeMs: 60_000 },
      [{ name: 'billing.v1.Billing', definition: billingV1.BillingService, implementation: { recordFreeTierChange } }],
      silent,
    );
    const config = loadConfig({
      BILLING_ADDR: `127.0.0.1:${billing.port}`,
      QUOTA_METRICS_PORT: '0',
      QUOTA_PORT: '0',
      BIND_HOST: '127.0.0.1',
      TLS_DIR: testTlsDir('quota-service'),
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: redis.keyPrefix,
      SHUTDOWN_GRACE_MS: '1000',
    });
    app = await startQuotaApp(config, silent);
    const settings = { timeoutMs: DEADLINE_MS, chain: clientChain() };
    const client = (identity: string) => rpcClient(quotaV1.QuotaClient, `127.0.0.1:${app.port}`, mtls(identity), 'quota-service', settings);
    [edge, chat, ctl, consoleQuota] = ['edge', 'chat-product', 'ctl', 'console'].map(client);
  });

  afterAll(async () => {
    for (const c of [edge, chat, ctl, consoleQuota]) c?.close();
    await app?.stop();
    await billing?.stop(1000);
    await redis?.cleanup();
  });

  it('AcquirePlace with a lease (the edge): its tokens and model within bounds, else no place and no lease', async () => {
    const accountId = newAccount();
    const requestId = `req_${++seq}`;
    for (const wrong of [
      { promptTokens: MAX_PROMPT_TOKENS + 1 },
      { completionTokens: MAX_COMPLETION_TOKENS + 1 },
      { completionTokens: 2 ** 62 },
      { model: id(MAX_MODEL_ID_LENGTH + 1, 'm') },
    ]) {
      await expect(edge.acquirePlace({ accountId, requestId, lease: lease(accountId, requestId, wrong) })).rejects.toMatchObject(invalid);
    }
    expect(await freePlaces(accountId)).toBe(3);
    expect((await edge.renewLeases({ leases: [lease(accountId, requestId)] })).unknownRequestIds).toEqual([requestId]);
    const atBounds = lease(accountId, requestId, {
      model: id(MAX_MODEL_ID_LENGTH, 'm'),
      promptTokens: MAX_PROMPT_TOKENS,
      completionTokens: MAX_COMPLETION_TOKENS,
    });
    expect(await edge.acquirePlace({ accountId, requestId, lease: atBounds })).toMatchObject({ granted: true });
    await expect(edge.renewLeases({ leases: [{ ...atBounds, promptTokens: MAX_PROMPT_TOKENS + 1 }] })).rejects.toMatchObject(invalid);
    expect((await edge.renewLeases({ leases: [atBounds] })).unknownRequestIds).toEqual([]);
  });

  it('FinishRequest and FinishRequests (the edge): tokens and model within bounds, else no usage and the place kept', async () => {
    const accountId = newAccount();
    const request = finishRequest(accountId);
    await edge.acquirePlace({ accountId, requestId: request.requestId, lease: undefined });
    for (const wrong of [
      { promptTokens: MAX_PROMPT_TOKENS + 1 },
      { completionTokens: MAX_COMPLETION_TOKENS + 1 },
      { promptTokens: 2 ** 62 },
      { model: id(MAX_MODEL_ID_LENGTH + 1, 'm') },
      { requestId: id(MAX_ID_LENGTH + 1) },
    ]) {
      await expect(finish({ ...request, ...wrong })).rejects.toMatchObject(invalid);
    }
    const batch = await edge.finishRequests({ requests: [{ ...request, completionTokens: MAX_COMPLETION_TOKENS + 1 }] });
    expect(batch.outcomes).toEqual([
      { finished: undefined, errorCode: status.INVALID_ARGUMENT, errorMessage: expect.stringContaining('completion_tokens') },
    ]);
    expect(await usage(accountId)).toEqual({ todayTokens: 0, totalTokens: 0 });
    expect(await freePlaces(accountId)).toBe(2);
    expect(await finish({ ...request, model: id(MAX_MODEL_ID_LENGTH, 'm') })).toEqual({ released: true, repeated: false });
    expect(await usage(accountId)).toEqual({
      todayTokens: MAX_PROMPT_TOKENS + MAX_COMPLETION_TOKENS,
      totalTokens: MAX_PROMPT_TOKENS + MAX_COMPLETION_TOKENS,
    });
  });

  it('ReserveFree (the edge): prompt and new message up to the context window, 32 images, 2 MB, max_tokens up to 32,768; nothing reserved past them', async () => {
    const accountId = newAccount();
    const ask = (overrides: Partial<quotaV1.ReserveFreeRequest>) =>
      edge.reserveFree({
        accountId,
        requestId: `req_${++seq}`,
        model: 'vendor-v4-flash',
        thinking: false,
        textPromptTokens: 100,
        imageCount: 0,
        newMessageTokens: 10,
        jsonBytes: 500,
        maxTokens: 100,
        ...overrides,
      });
    for (const wrong of [
      { textPromptTokens: MAX_PROMPT_TOKENS + 1 },
      { textPromptTokens: 2 ** 62 },
      { imageCount: MAX_IMAGES + 1 },
      { newMessageTokens: MAX_PROMPT_TOKENS + 1 },
      { jsonBytes: MAX_BODY_BYTES + 1 },
      { maxTokens: MAX_COMPLETION_TOKENS + 1 },
      { model: id(MAX_MODEL_ID_LENGTH + 1, 'm') },
    ]) {
      await expect(ask(wrong)).rejects.toMatchObject(invalid);
    }
    expect(await allowance(accountId)).toMatchObject({ usedTokens: 0 });
    // At the bounds each is a request the free tier answers (too large for it), not an error.
    for (const atBound of [
      { textPromptTokens: MAX_PROMPT_TOKENS },
      { newMessageTokens: MAX_PROMPT_TOKENS },
      { jsonBytes: MAX_BODY_BYTES },
    ]) {
      expect(await ask(atBound)).toMatchObject({ granted: false, refusal: quotaV1.FreeRefusal.FREE_REFUSAL_REQUEST_TOO_LARGE });
    }
    expect(await ask({ imageCount: MAX_IMAGES, maxTokens: MAX_COMPLETION_TOKENS })).toMatchObject({ granted: true, maxTokens: 2048 });
    await expect(allowance(id(MAX_ID_LENGTH + 1))).rejects.toMatchObject(invalid);
  });
});
