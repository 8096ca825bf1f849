import { status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, GrpcSecurity, openDatabase, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, createTestRedis, eventually, TestDatabase, TestRedis, testTlsDir } from '@gw/testing';
import { loadConfig } from '../../src/config';
import { QuotaApp, startQuotaApp } from '../../src/quota-app';
import { BillingProcess, startBillingProcess } from '../billing-process';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const DEADLINE_MS = 3000;
const { PAYMENT_PAID, PAYMENT_FREE } = quotaV1.Payment;
const mtls = (identity: string): GrpcSecurity => ({ kind: 'mtls', dir: testTlsDir(identity), refreshMs: 60_000 });
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };

type Quota = RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;

/**
 * Who may start a lease (docs/api.md#overview: the chat product's use counts toward usage and the shared
 * limits, never toward the API balance or the free tier). Real quota-service and billing-service
 * with mutual TLS, each caller with its own certificate: a lease carries a bill, so only the edge
 * may send one, and only for the account of its call.
 */
describe("quota-service over mutual TLS: the older release's leases are the edge's, and of the call's account", () => {
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

  const lease = (accountId: string, requestId: string, payment: quotaV1.Payment, tokens = 10): quotaV1.Lease => ({
    accountId,
    requestId,
    model: 'vendor-v4-flash',
    payment,
    promptTokens: tokens,
    completionTokens: tokens,
  });
  /** The request ids of these leases that quota-service does not hold (RenewLeases, as the edge asks). */
  const unknownLeases = async (edge: Quota, leases: quotaV1.Lease[]) => (await edge.renewLeases({ leases })).unknownRequestIds;
  const usage = (client: Quota, accountId: string) => client.getUsage({ accountId });
  const ledgerRows = async (accountId: string) =>
    (await db.query('SELECT request_id FROM billing.ledger WHERE account_id = $1', [accountId])).rows;
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

  it('refuses the chat product a lease, of another account or its own, paid or free, with PERMISSION_DENIED, and writes nothing', async () => {
    // Leases lapse soon here: the reaper finishes (and bills) whatever lease there is.
    const { edge, chat, console: consoleQuota } = await startApp({ REDIS_KEY_PREFIX: `${redis.keyPrefix}lapsing:`, LEASE_TTL_MS: '300' });
    const attacker = newAccount('attacker');
    const victim = newAccount('victim');
    const planted = [
      // The attack as found: a free lease of 10,000,000 + 10,000,000 tokens for another account.
      { accountId: attacker, lease: lease(victim, '', PAYMENT_FREE, 10_000_000) },
      { accountId: victim, lease: lease(victim, '', PAYMENT_FREE, 1000) },
      { accountId: victim, lease: lease(victim, '', PAYMENT_PAID, 1000) },
    ].map((req) => {
      const requestId = `planted_${++seq}`;
      return { accountId: req.accountId, requestId, lease: { ...req.lease, requestId } };
    });
    for (const req of planted) await expect(chat.acquirePlace(req)).rejects.toMatchObject({ code: status.PERMISSION_DENIED });

    // No lease, so nothing for the reaper to finish into a bill; no place taken; no free allowance used.
    // (Asked with tokens within their bounds: RenewLeases, like AcquirePlace, takes no lease past them.)
    expect(
      await unknownLeases(
        edge,
        planted.map((req) => ({ ...req.lease, promptTokens: 1, completionTokens: 1 })),
      ),
    ).toEqual(planted.map((req) => req.requestId));
    for (const accountId of [attacker, victim]) {
      const places = await Promise.all([1, 2, 3].map((n) => chat.acquirePlace({ accountId, requestId: `turn_${n}`, lease: undefined })));
      expect(places.map((p) => p.granted)).toEqual([true, true, true]);
    }
    expect(await consoleQuota.getFreeAllowance({ accountId: victim })).toMatchObject({
      usedTokens: 0,
    });

    // A lease the edge starts and lets lapse is finished and billed by the reaper. A lease planted
    // before it would have lapsed first and been finished first, so once the edge's is in the
    // ledger, the usage and the ledger of the accounts attacked show that there was none.
    const witness = newAccount('witness');
    const witnessRequest = `witness_${++seq}`;
    expect(
      await edge.acquirePlace({ accountId: witness, requestId: witnessRequest, lease: lease(witness, witnessRequest, PAYMENT_FREE) }),
    ).toMatchObject({ granted: true });
    expect(
      await eventually(
        () => ledgerRows(witness),
        (rows) => rows.length > 0,
      ),
    ).toEqual([{ request_id: witnessRequest }]);
    expect(await usage(edge, witness)).toEqual({ todayTokens: 20, totalTokens: 20 });
    for (const accountId of [attacker, victim]) {
      expect(await usage(edge, accountId)).toEqual({ todayTokens: 0, totalTokens: 0 });
      expect(await ledgerRows(accountId)).toEqual([]);
    }
  });

  it('refuses any caller, the edge too, a lease that names another account or request than its call (INVALID_ARGUMENT)', async () => {
    const { edge } = quota;
    const accountId = newAccount('edge');
    const other = newAccount('other');
    const requestId = `req_${++seq}`;
    const mismatched = [lease(other, requestId, PAYMENT_PAID), lease(accountId, `req_${++seq}`, PAYMENT_PAID)];
    for (const wrong of mismatched)
      await expect(edge.acquirePlace({ accountId, requestId, lease: wrong })).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(await unknownLeases(edge, mismatched)).toEqual(mismatched.map((l) => l.requestId));
    expect(await unknownLeases(edge, [lease(accountId, requestId, PAYMENT_PAID)])).toEqual([requestId]);
  });

  it("still starts the edge's lease with its place, and still gives the chat product places and usage without one", async () => {
    const { edge, chat } = quota;
    const accountId = newAccount('normal');
    const requestId = `req_${++seq}`;
    expect(await edge.acquirePlace({ accountId, requestId, lease: lease(accountId, requestId, PAYMENT_PAID) })).toEqual({
      granted: true,
      limit: 3,
    });
    expect(await unknownLeases(edge, [lease(accountId, requestId, PAYMENT_PAID)])).toEqual([]);
    const finish = {
      accountId,
      requestId,
      model: 'vendor-v4-flash',
      payment: PAYMENT_PAID,
      promptTokens: 0,
      completionTokens: 0,
      usageEstimated: false,
    };
    expect(await edge.finishRequest(finish)).toEqual({ released: true, repeated: false });

    expect(await chat.acquirePlace({ accountId, requestId: 'chat-turn-1', lease: undefined })).toMatchObject({
      granted: true,
      limit: 3,
      rateLimited: false,
      count: { allowed: true, remaining: 29 },
    });
    expect(await chat.releasePlace({ accountId, requestId: 'chat-turn-1', promptTokens: 40, completionTokens: 2 })).toEqual({
      released: true,
    });
    expect(await usage(chat, accountId)).toEqual({ todayTokens: 42, totalTokens: 42 });
  });
});
