import { ServiceError, status } from '@grpc/grpc-js';
import { MAX_COMPLETION_TOKENS, MAX_FREE_TIER_TOKENS, MAX_ID_LENGTH, MAX_PROMPT_TOKENS } from '@gw/bounds';
import { billingV1, quotaV1 } from '@gw/contracts';
import { clientChain, createLogger, GrpcSecurity, RpcClient, rpcClient, RunningGrpcServer, startGrpcServer } from '@gw/service-kit';
import { createTestRedis, TestRedis, testTlsDir } from '@gw/testing';
import { loadConfig } from '../src/config';
import { QuotaApp, startQuotaApp } from '../src/quota-app';

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
describe('quota.v1.Quota over gRPC: bounds of token counts, counts and ids', () => {
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
  const release = (req: quotaV1.ReleasePlaceRequest) => chat.releasePlace(req);
  /** How many of the account's 3 places are free now (takes them, then gives them back without tokens). */
  const freePlaces = async (accountId: string) => {
    const probes = ['probe_1', 'probe_2', 'probe_3'];
    const granted = (await Promise.all(probes.map((requestId) => chat.acquirePlace({ accountId, requestId, lease: undefined })))).filter(
      (p) => p.granted,
    ).length;
    for (const requestId of probes) await release({ accountId, requestId, promptTokens: 0, completionTokens: 0 });
    return granted;
  };
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

  it('ReleasePlace (the chat product): 2^52 and 2^62 tokens are refused and count nothing; a context window plus 32,768 is counted', async () => {
    const accountId = newAccount();
    expect(await chat.acquirePlace({ accountId, requestId: 'turn', lease: undefined })).toMatchObject({ granted: true });
    const turn = { accountId, requestId: 'turn', promptTokens: MAX_PROMPT_TOKENS, completionTokens: MAX_COMPLETION_TOKENS };
    for (const tooMany of [
      { promptTokens: 2 ** 52 },
      { promptTokens: 2 ** 62 },
      { completionTokens: 2 ** 52 },
      { completionTokens: 2 ** 62 },
      { promptTokens: MAX_PROMPT_TOKENS + 1 },
      { completionTokens: MAX_COMPLETION_TOKENS + 1 },
      { accountId: id(MAX_ID_LENGTH + 1) },
      { requestId: id(MAX_ID_LENGTH + 1) },
    ]) {
      await expect(release({ ...turn, ...tooMany })).rejects.toMatchObject(invalid);
    }
    expect(await usage(accountId)).toEqual({ todayTokens: 0, totalTokens: 0 });
    // The place is still the turn's: the refused calls gave nothing back.
    expect(await freePlaces(accountId)).toBe(2);
    expect(await release(turn)).toEqual({ released: true });
    expect(await usage(accountId)).toEqual({
      todayTokens: MAX_PROMPT_TOKENS + MAX_COMPLETION_TOKENS,
      totalTokens: MAX_PROMPT_TOKENS + MAX_COMPLETION_TOKENS,
    });
    const longIds = { accountId: id(MAX_ID_LENGTH, 'a'), requestId: id(MAX_ID_LENGTH, 'r') };
    expect(await release({ ...longIds, promptTokens: 1, completionTokens: 1 })).toEqual({ released: false });
    expect(await usage(longIds.accountId)).toEqual({ todayTokens: 2, totalTokens: 2 });
  });

  it('CountRequest, AcquirePlace and GetUsage: ids up to 200 characters', async () => {
    await expect(chat.countRequest({ accountId: id(MAX_ID_LENGTH + 1) })).rejects.toMatchObject(invalid);
    const counted = await chat.countRequest({ accountId: id(MAX_ID_LENGTH, 'c') });
    expect(counted).toMatchObject({ allowed: true, remaining: 29 });
    await expect(chat.acquirePlace({ accountId: id(MAX_ID_LENGTH + 1), requestId: 'r', lease: undefined })).rejects.toMatchObject(invalid);
    await expect(
      chat.acquirePlace({ accountId: id(MAX_ID_LENGTH, 'p'), requestId: id(MAX_ID_LENGTH + 1), lease: undefined }),
    ).rejects.toMatchObject(invalid);
    expect(await freePlaces(id(MAX_ID_LENGTH, 'p'))).toBe(3);
    expect(await chat.acquirePlace({ accountId: id(MAX_ID_LENGTH, 'p'), requestId: id(MAX_ID_LENGTH), lease: undefined })).toMatchObject({
      granted: true,
    });
    await expect(usage(id(MAX_ID_LENGTH + 1))).rejects.toMatchObject(invalid);
  });

  it('SetFreeTierSettings (the operator): allowance and pool up to 10^12 tokens', async () => {
    const set = (req: quotaV1.SetFreeTierSettingsRequest) => ctl.setFreeTierSettings(req);
    const before = await set({});
    await expect(set({ dailyTokens: MAX_FREE_TIER_TOKENS + 1 })).rejects.toMatchObject(invalid);
    await expect(set({ poolTokens: MAX_FREE_TIER_TOKENS + 1 })).rejects.toMatchObject(invalid);
    await expect(set({ poolTokens: 2 ** 62 })).rejects.toMatchObject(invalid);
    expect(await set({})).toEqual(before);
    expect(recorded).toEqual([]);
    await expect(set({ dailyTokens: MAX_FREE_TIER_TOKENS, reason: 'trail down' })).rejects.toMatchObject({ code: status.UNAVAILABLE });
    expect(await set({})).toEqual(before);
    expect(await set({ dailyTokens: MAX_FREE_TIER_TOKENS, poolTokens: MAX_FREE_TIER_TOKENS })).toMatchObject({
      settings: { dailyTokens: MAX_FREE_TIER_TOKENS, poolTokens: MAX_FREE_TIER_TOKENS },
    });
    expect(recorded).toEqual([
      {
        ...before.settings,
        dailyTokens: MAX_FREE_TIER_TOKENS,
        poolTokens: MAX_FREE_TIER_TOKENS,
        changed: ['daily_tokens', 'pool_tokens'],
        actor: 'ctl',
        reason: '',
      },
    ]);
    await set({ dailyTokens: before.settings?.dailyTokens, poolTokens: before.settings?.poolTokens });
  });

  it('EdgeCalls: a call with an int64 past 2^53 - 1 ends its stream with INVALID_ARGUMENT, not INTERNAL', async () => {
    const accountId = newAccount();
    const stream = edge.streams.edgeCalls();
    const failed = new Promise<ServiceError>((resolve) => stream.on('error', resolve));
    stream.write({
      calls: [
        {
          callId: 1,
          timeoutMs: 2000,
          request: { $case: 'finishRequest', value: finishRequest(accountId, { completionTokens: 2 ** 62 }) },
          traceContext: {},
        },
      ],
      cancelledCallIds: [],
    });
    expect(await failed).toMatchObject(invalid);
    expect(await usage(accountId)).toEqual({ todayTokens: 0, totalTokens: 0 });
  });
});
