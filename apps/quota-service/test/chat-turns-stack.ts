import { quotaV1 } from '@gw/contracts';
import { clientChain, createLogger, GrpcSecurity, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, createTestRedis, TestDatabase, TestRedis, testTlsDir } from '@gw/testing';
import { loadConfig } from '../src/config';
import { QuotaApp, startQuotaApp } from '../src/quota-app';
import { BillingProcess, startBillingProcess } from './billing-process';

const silent = createLogger('quota-service-test', 'error', () => undefined);

type Quota = RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;

/** One quota-service and a billing-service over mutual TLS, and the edge's and the chat product's clients of it. */
export interface ChatTurnsStack {
  redis: TestRedis;
  billingService: BillingProcess;
  app: QuotaApp;
  edge: Quota;
  chat: Quota;
}

const mtls = (identity: string): GrpcSecurity => ({ kind: 'mtls', dir: testTlsDir(identity), refreshMs: 60_000 });
const SETTINGS = { timeoutMs: 3000, chain: clientChain() };

/**
 * Sets up, for the describe block that calls it, a Redis key space and a database of their own,
 * billing-service and one quota-service on them, each identity with its own certificate; removes
 * everything after the block. The fields are filled before its first test runs.
 */
export function chatTurnsStack(): ChatTurnsStack {
  let testDb: TestDatabase;
  const stack = {} as ChatTurnsStack;
  beforeAll(async () => {
    [stack.redis, testDb] = await Promise.all([createTestRedis(), createTestDatabase()]);
    stack.billingService = await startBillingProcess(testDb.url, testTlsDir('billing-service'));
    const config = loadConfig({
      QUOTA_METRICS_PORT: '0',
      QUOTA_PORT: '0',
      BIND_HOST: '127.0.0.1',
      TLS_DIR: testTlsDir('quota-service'),
      REDIS_URL: stack.redis.url,
      REDIS_KEY_PREFIX: stack.redis.keyPrefix,
      BILLING_ADDR: stack.billingService.address,
      SETTLE_POLL_MS: '20',
      SHUTDOWN_GRACE_MS: '1000',
    });
    stack.app = await startQuotaApp(config, silent);
    const client = (identity: string) =>
      rpcClient(quotaV1.QuotaClient, `127.0.0.1:${stack.app.port}`, mtls(identity), 'quota-service', SETTINGS);
    stack.edge = client('edge');
    stack.chat = client('chat-product');
  }, 60_000);
  afterAll(async () => {
    stack.edge?.close();
    stack.chat?.close();
    await stack.app?.stop();
    await stack.billingService?.stop();
    await Promise.all([stack.redis?.cleanup(), testDb?.drop()]);
  });
  return stack;
}
