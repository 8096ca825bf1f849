import { status } from '@grpc/grpc-js';
import { billingV1, quotaV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, Env, GrpcSecurity, openDatabase, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, createTestRedis, TestDatabase, TestRedis } from '@gw/testing';
import { loadConfig } from '../src/config';
import { QuotaApp, startQuotaApp } from '../src/quota-app';
import { BillingProcess, startBillingProcess } from './billing-process';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const DEADLINE_MS = 3000;
const INSECURE: GrpcSecurity = { kind: 'insecure' };
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };

describe('quota-service over gRPC: free tier and the end of a request, billed through the outbox', () => {
  let redis: TestRedis;
  let testDb: TestDatabase;
  let db: Database;
  let billingService: BillingProcess;
  let billing: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  const apps: QuotaApp[] = [];
  const clients: RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>[] = [];
  let seq = 0;

  const startApp = async (env: Env = {}) => {
    const config = loadConfig({
      QUOTA_METRICS_PORT: '0',
      QUOTA_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: redis.keyPrefix,
      BILLING_ADDR: billingService.address,
      SETTLE_POLL_MS: '20',
      SETTLE_MAX_BACKOFF_MS: '100',
      SETTLE_CLAIM_IDLE_MS: '200',
      SHUTDOWN_GRACE_MS: '1000',
      ...env,
    });
    const app = await startQuotaApp(config, silent);
    const client = rpcClient(quotaV1.QuotaClient, `127.0.0.1:${app.port}`, INSECURE, 'quota-service', SETTINGS);
    apps.push(app);
    clients.push(client);
    return { app, quota: client };
  };
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

  beforeAll(async () => {
    [redis, testDb] = await Promise.all([createTestRedis(), createTestDatabase()]);
    billingService = await startBillingProcess(testDb.url);
    billing = rpcClient(billingV1.BillingClient, billingService.address, INSECURE, 'billing-service', SETTINGS);
    db = await openDatabase(testDb.url, '');
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    for (const app of apps) await app.stop();
    billing?.close();
    await db?.close();
    await billingService?.stop();
    await Promise.all([redis?.cleanup(), testDb?.drop()]);
  });

  it('reads and changes the free-tier settings', async () => {
    const { quota } = await startApp({ FREE_DAILY_TOKENS: '5000' });
    const set = (req: quotaV1.SetFreeTierSettingsRequest) => quota.setFreeTierSettings(req);
    expect(await set({})).toEqual({ settings: { dailyTokens: 5000, poolTokens: 50_000_000, paused: false, enabled: true } });
    expect(await set({ paused: true, poolTokens: 10 })).toEqual({
      settings: { dailyTokens: 5000, poolTokens: 10, paused: true, enabled: true },
    });
    expect(await set({ paused: false, poolTokens: 50_000_000 })).toMatchObject({ settings: { paused: false } });
    await expect(set({ dailyTokens: -1 })).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
  });

  it('tells an account its free allowance of today (GetFreeAllowance, for the console)', async () => {
    const { quota } = await startApp({ FREE_DAILY_TOKENS: '10000' });
    const allowance = (accountId: string) => quota.getFreeAllowance({ accountId });
    const accountId = `acct_allowance_${Date.now()}`;
    expect(await allowance(accountId)).toEqual({ dailyTokens: 10_000, usedTokens: 0, remainingTokens: 10_000, available: true });
    const admitted = await quota.admit({ ...freeRequest(accountId), promptTokens: 1100 });
    expect(admitted).toMatchObject({ outcome: quotaV1.AdmitOutcome.ADMIT_OUTCOME_FREE });
    expect(await allowance(accountId)).toEqual({
      dailyTokens: 10_000,
      usedTokens: 1100 + 2048,
      remainingTokens: 10_000 - 3148,
      available: true,
    });
    await expect(allowance('')).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
  });
});
