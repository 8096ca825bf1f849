import { status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, GrpcSecurity, openDatabase, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, createTestRedis, TestDatabase, TestRedis, testTlsDir } from '@gw/testing';
import { loadConfig } from '../src/config';
import { QuotaApp, startQuotaApp } from '../src/quota-app';
import { BillingProcess, startBillingProcess } from './billing-process';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const DEADLINE_MS = 3000;
const mtls = (identity: string): GrpcSecurity => ({ kind: 'mtls', dir: testTlsDir(identity), refreshMs: 60_000 });
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };

type Quota = RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;

/**
 * Who may start a lease (docs/api.md#overview: the chat product's use counts toward usage and the shared
 * limits, never toward the API balance or the free tier). Real quota-service and billing-service
 * with mutual TLS, each caller with its own certificate: a lease carries a bill, so only the edge
 * may send one, and only for the account of its call.
 */
describe("quota-service over mutual TLS: leases are the edge's, and of the call's account", () => {
  let redis: TestRedis;
  let testDb: TestDatabase;
  let db: Database;
  let billingService: BillingProcess;
  const apps: QuotaApp[] = [];
  const clients: Quota[] = [];
  let seq = 0;

  /** A quota-service on its own key space, and a client of it for each of the edge, the chat product and the console. */
  const startApp = async (env: Record<string, string>) => {
    const config = loadConfig({
      QUOTA_METRICS_PORT: '0',
      QUOTA_PORT: '0',
      BIND_HOST: '127.0.0.1',
      TLS_DIR: testTlsDir('quota-service'),
      REDIS_URL: redis.url,
      BILLING_ADDR: billingService.address,
      SETTLE_POLL_MS: '20',
      SHUTDOWN_GRACE_MS: '1000',
      ...env,
    });
    const app = await startQuotaApp(config, silent);
    apps.push(app);
    const client = (identity: string) => {
      const made = rpcClient(quotaV1.QuotaClient, `127.0.0.1:${app.port}`, mtls(identity), 'quota-service', SETTINGS);
      clients.push(made);
      return made;
    };
    return { edge: client('edge'), chat: client('chat-product'), console: client('console') };
  };
  let quota: Awaited<ReturnType<typeof startApp>>;
  const newAccount = (name: string) => `acct_${name}_${process.pid}_${++seq}`;

  beforeAll(async () => {
    [redis, testDb] = await Promise.all([createTestRedis(), createTestDatabase()]);
    billingService = await startBillingProcess(testDb.url, testTlsDir('billing-service'));
    db = await openDatabase(testDb.url, '');
    quota = await startApp({ REDIS_KEY_PREFIX: redis.keyPrefix });
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    for (const app of apps) await app.stop();
    await db?.close();
    await billingService?.stop();
    await Promise.all([redis?.cleanup(), testDb?.drop()]);
  });

  it('answers GetHeld to the console, and refuses the edge and the chat product with PERMISSION_DENIED', async () => {
    const accountId = newAccount('held');
    const held = (client: Quota) => client.getHeld({ accountId });
    expect(await held(quota.console)).toEqual({ heldMicroLyd: 0 });
    for (const refused of [quota.edge, quota.chat]) await expect(held(refused)).rejects.toMatchObject({ code: status.PERMISSION_DENIED });
  });
});
