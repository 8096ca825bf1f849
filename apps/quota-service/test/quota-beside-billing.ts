import { billingV1, quotaV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, Env, GrpcSecurity, openDatabase, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, createTestRedis, TestDatabase, TestRedis } from '@gw/testing';
import { loadConfig } from '../src/config';
import { QuotaApp, startQuotaApp } from '../src/quota-app';
import { BillingProcess, startBillingProcess } from './billing-process';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const INSECURE: GrpcSecurity = { kind: 'insecure' };
const SETTINGS = { timeoutMs: 3000, chain: clientChain() };

/** quota-service replicas over gRPC beside a real billing-service process, whose outbox they deliver to. */
export interface QuotaBesideBilling {
  redis: TestRedis;
  /** billing-service's database, to read its ledger. */
  db: Database;
  billing: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  /** Starts a quota-service replica (its outbox polled every 20 ms), stopped after the block. */
  startApp(env?: Env): Promise<{ app: QuotaApp; quota: RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService> }>;
}

/**
 * Sets up, for the describe block that calls it, a Redis key space and a database of their own with
 * billing-service running on them, and removes everything after the block. The fields are filled
 * before its first test runs.
 */
export function quotaBesideBilling(): QuotaBesideBilling {
  let testDb: TestDatabase;
  let billingService: BillingProcess;
  const apps: QuotaApp[] = [];
  const clients: RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>[] = [];
  const harness = {
    async startApp(env: Env = {}) {
      const config = loadConfig({
        QUOTA_METRICS_PORT: '0',
        QUOTA_PORT: '0',
        BIND_HOST: '127.0.0.1',
        GRPC_INSECURE: 'true',
        REDIS_URL: harness.redis.url,
        REDIS_KEY_PREFIX: harness.redis.keyPrefix,
        BILLING_ADDR: billingService.address,
        SETTLE_POLL_MS: '20',
        SETTLE_MAX_BACKOFF_MS: '100',
        SETTLE_CLAIM_IDLE_MS: '200',
        SHUTDOWN_GRACE_MS: '1000',
        ...env,
      });
      const app = await startQuotaApp(config, silent);
      const quota = rpcClient(quotaV1.QuotaClient, `127.0.0.1:${app.port}`, INSECURE, 'quota-service', SETTINGS);
      apps.push(app);
      clients.push(quota);
      return { app, quota };
    },
  } as QuotaBesideBilling;

  beforeAll(async () => {
    [harness.redis, testDb] = await Promise.all([createTestRedis(), createTestDatabase()]);
    billingService = await startBillingProcess(testDb.url);
    harness.billing = rpcClient(billingV1.BillingClient, billingService.address, INSECURE, 'billing-service', SETTINGS);
    harness.db = await openDatabase(testDb.url, '');
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    for (const app of apps) await app.stop();
    harness.billing?.close();
    await harness.db?.close();
    await billingService?.stop();
    await Promise.all([harness.redis?.cleanup(), testDb?.drop()]);
  });
  return harness;
}
