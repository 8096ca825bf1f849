import { status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, openDatabase, renderMetrics, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, eventually, PausableProxy, startPausableProxy, TestDatabase } from '@gw/testing';
import { BillingApp, startBillingApp } from '../../src/billing-app';
import { loadConfig } from '../../src/config';
import { codeOf } from '../billing-test-db';

const DEADLINE_MS = 5000;
// Far shorter than the stall below lasts: the stall only ends once the caller has seen this pass.
const SHORT_DEADLINE_MS = 300;

/** How many Authorize calls the server has finished handling, whatever their status. */
async function authorizeCallsHandled(): Promise<number> {
  const line = /^grpc_server_handling_seconds_count\{[^}]*method="Authorize"[^}]*\} (\d+)$/;
  return (await renderMetrics()).split('\n').reduce((sum, l) => sum + Number(line.exec(l)?.[1] ?? 0), 0);
}

describe('Authorize whose caller has gone (billing-service behind a stalled database)', () => {
  let testDb: TestDatabase;
  let proxy: PausableProxy;
  let app: BillingApp;
  let client: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  let direct: Database;

  const authorize = (requestId: string, model: string, deadlineMs = DEADLINE_MS) =>
    client.authorize({ requestId, accountId: 'acct_gone', model, promptTokens: 100, maxTokens: 100 }, { timeoutMs: deadlineMs });
  const heldMicro = async () =>
    Number(
      (await direct.query<{ held: string }>("SELECT held_micro::text AS held FROM billing.balances WHERE account_id = 'acct_gone'")).rows[0]
        .held,
    );
  const holdsOf = async (requestId: string) =>
    (await direct.query('SELECT 1 FROM billing.holds WHERE request_id = $1', [requestId])).rows.length;

  /** Authorize with a short deadline while the database is stalled; the stall ends once the caller gave up and the handler finishes. */
  async function authorizeWhileStalled(requestId: string, model: string): Promise<void> {
    const handledBefore = await authorizeCallsHandled();
    proxy.stall();
    try {
      expect(await codeOf(authorize(requestId, model, SHORT_DEADLINE_MS))).toBe(status.DEADLINE_EXCEEDED);
    } finally {
      proxy.resume();
    }
    await eventually(authorizeCallsHandled, (handled) => handled > handledBefore, { intervalMs: 20 });
  }

  beforeAll(async () => {
    testDb = await createTestDatabase();
    proxy = await startPausableProxy(testDb.url);
    const config = loadConfig({
      BILLING_METRICS_PORT: '0',
      BILLING_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      DATABASE_URL: proxy.url,
      SHUTDOWN_GRACE_MS: '1000',
    });
    app = await startBillingApp(
      config,
      createLogger('billing-service', 'error', () => undefined),
    );
    const settings = { timeoutMs: DEADLINE_MS, chain: clientChain() };
    client = rpcClient(billingV1.BillingClient, `127.0.0.1:${app.port}`, { kind: 'insecure' }, 'billing-service', settings);
    direct = await openDatabase(testDb.url, '');
    await client.addBalance({ accountId: 'acct_gone', amountMicroLyd: 10_000_000 });
  });

  afterAll(async () => {
    client?.close();
    await direct?.close();
    try {
      await app?.stop();
    } finally {
      await proxy?.close();
      await testDb?.drop();
    }
  });

  it('places no hold when the caller has gone before the hold is placed (the price was still being read)', async () => {
    const price = { model: 'vendor-v4-cold', inputMicroLydPerMillion: 1_000_000, outputMicroLydPerMillion: 1_000_000 };
    await client.setPrice({ price });
    await authorizeWhileStalled('req_gone_before', 'vendor-v4-cold');
    expect(await holdsOf('req_gone_before')).toBe(0);
    expect(await heldMicro()).toBe(0);
  });

  it('releases the hold when the caller went away while it was being placed', async () => {
    expect(await authorize('req_warm', 'vendor-v4-flash')).toMatchObject({ approved: true });
    await client.releaseHold({ requestId: 'req_warm' });
    await authorizeWhileStalled('req_gone_during', 'vendor-v4-flash');
    expect(await holdsOf('req_gone_during')).toBe(0);
    expect(await heldMicro()).toBe(0);
  });

  it('still holds for a caller that waits, and the balance is whole', async () => {
    expect(await authorize('req_alive', 'vendor-v4-flash')).toMatchObject({ approved: true, balanceMicroLyd: 10_000_000 });
    expect(await holdsOf('req_alive')).toBe(1);
    expect(await heldMicro()).toBe(500);
  });
});
