import { status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { clientChain, createLogger, GrpcSecurity, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, createTestRedis, TestDatabase, TestRedis, testTlsDir } from '@gw/testing';
import { loadConfig } from '../../src/config';
import { QuotaApp, startQuotaApp } from '../../src/quota-app';
import { awayFromMinuteEnd } from '../admission-stack';
import { BillingProcess, startBillingProcess } from '../billing-process';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const DEADLINE_MS = 3000;
const { PAYMENT_FREE } = quotaV1.Payment;
const mtls = (identity: string): GrpcSecurity => ({ kind: 'mtls', dir: testTlsDir(identity), refreshMs: 60_000 });
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };

type Quota = RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;

/**
 * The chat product shares the API's count and places (docs/api.md#rate-limits): a chat turn is
 * counted when it takes its place, and a place is given back only by the caller that took it.
 * Real quota-service and billing-service over mutual TLS, the edge and the chat product each with
 * its own certificate.
 */
describe("quota-service over mutual TLS: the chat product's places beside the older release's edge", () => {
  let redis: TestRedis;
  let testDb: TestDatabase;
  let billingService: BillingProcess;
  let app: QuotaApp;
  let edge: Quota;
  let chat: Quota;
  let seq = 0;
  const newAccount = (name: string) => `acct_${name}_${process.pid}_${++seq}`;
  const turn = (accountId: string, requestId: string) => chat.acquirePlace({ accountId, requestId, lease: undefined });
  const release = (accountId: string, requestId: string, tokens = 1) =>
    chat.releasePlace({ accountId, requestId, promptTokens: tokens, completionTokens: 0 });

  beforeAll(async () => {
    [redis, testDb] = await Promise.all([createTestRedis(), createTestDatabase()]);
    billingService = await startBillingProcess(testDb.url, testTlsDir('billing-service'));
    const config = loadConfig({
      QUOTA_METRICS_PORT: '0',
      QUOTA_PORT: '0',
      BIND_HOST: '127.0.0.1',
      TLS_DIR: testTlsDir('quota-service'),
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: redis.keyPrefix,
      BILLING_ADDR: billingService.address,
      SETTLE_POLL_MS: '20',
      SHUTDOWN_GRACE_MS: '1000',
    });
    app = await startQuotaApp(config, silent);
    edge = rpcClient(quotaV1.QuotaClient, `127.0.0.1:${app.port}`, mtls('edge'), 'quota-service', SETTINGS);
    chat = rpcClient(quotaV1.QuotaClient, `127.0.0.1:${app.port}`, mtls('chat-product'), 'quota-service', SETTINGS);
  }, 60_000);

  afterAll(async () => {
    edge?.close();
    chat?.close();
    await app?.stop();
    await billingService?.stop();
    await Promise.all([redis?.cleanup(), testDb?.drop()]);
  });

  beforeEach(() => awayFromMinuteEnd(10_000));

  it("keeps the chat product's place when the edge finishes a request of the same id, admitted or not (the finish itself still lands)", async () => {
    const accountId = newAccount('shared');
    const [admittedId, olderId] = [`${accountId}_turn_1`, `${accountId}_turn_2`];
    for (const requestId of [admittedId, olderId]) expect(await turn(accountId, requestId)).toMatchObject({ granted: true });
    const finish = {
      accountId,
      model: 'vendor-v4-flash',
      payment: PAYMENT_FREE,
      promptTokens: 1,
      completionTokens: 1,
      usageEstimated: false,
    };
    expect(await edge.finishRequest({ ...finish, requestId: admittedId, admitted: true })).toEqual({ released: false, repeated: false });
    // An older edge's finish (no `admitted`).
    expect(await edge.finishRequest({ ...finish, requestId: olderId })).toEqual({ released: false, repeated: false });
    for (const requestId of [admittedId, olderId]) expect(await release(accountId, requestId)).toEqual({ released: true });
  });

  it("refuses an older edge's AcquirePlace under a chat turn's id (PERMISSION_DENIED) and leaves no lease", async () => {
    const accountId = newAccount('edge_collides');
    const requestId = `${accountId}_turn`;
    expect(await turn(accountId, requestId)).toMatchObject({ granted: true });
    const lease = { accountId, requestId, model: 'vendor-v4-flash', payment: PAYMENT_FREE, promptTokens: 1, completionTokens: 1 };
    await expect(edge.acquirePlace({ accountId, requestId, lease })).rejects.toMatchObject({ code: status.PERMISSION_DENIED });
    expect(await edge.renewLeases({ leases: [lease] })).toEqual({ unknownRequestIds: [requestId] });
    expect(await release(accountId, requestId)).toEqual({ released: true });
  });
});
