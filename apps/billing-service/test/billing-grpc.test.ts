import { status } from '@grpc/grpc-js';
import { billingV1, healthV1 } from '@gw/contracts';
import { clientChain, createLogger, GrpcSecurity, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { BillingApp, startBillingApp } from '../src/billing-app';
import { loadConfig } from '../src/config';
import { codeOf } from './billing-test-db';

const DEADLINE_MS = 5000;
const INSECURE: GrpcSecurity = { kind: 'insecure' };
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };

describe('billing.v1.Billing over gRPC', () => {
  let testDb: TestDatabase;
  let app: BillingApp;
  let client: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  let health: RpcClient<healthV1.HealthClient, healthV1.HealthService>;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const config = loadConfig({
      BILLING_METRICS_PORT: '0',
      BILLING_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      DATABASE_URL: testDb.url,
      SHUTDOWN_GRACE_MS: '1000',
    });
    app = await startBillingApp(
      config,
      createLogger('billing-service', 'error', () => undefined),
    );
    client = rpcClient(billingV1.BillingClient, `127.0.0.1:${app.port}`, INSECURE, 'billing-service', SETTINGS);
    health = rpcClient(healthV1.HealthClient, `127.0.0.1:${app.port}`, INSECURE, 'billing-service', SETTINGS);
  });

  afterAll(async () => {
    client?.close();
    health?.close();
    try {
      await app?.stop();
    } finally {
      await testDb?.drop();
    }
  });

  it('reports SERVING for billing.v1.Billing', async () => {
    const res = await health.check({ service: 'billing.v1.Billing' });
    expect(res.status).toBe(healthV1.HealthCheckResponse_ServingStatus.SERVING);
  });

  it('sends refusals as gRPC statuses', async () => {
    expect(await codeOf(client.addBalance({ accountId: 'acct_empty', amountMicroLyd: -1 }))).toBe(status.FAILED_PRECONDITION);
    expect(await codeOf(client.setPrice({ price: undefined }))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(client.listCharges({ accountId: '', limit: 1, before: '' }))).toBe(status.INVALID_ARGUMENT);
  });

  it('serves prices and balances', async () => {
    const price = { model: 'vendor-v4-test', inputMicroLydPerMillion: 2_000_000, outputMicroLydPerMillion: 8_000_000 };
    expect(await client.setPrice({ price })).toEqual({ price });
    expect(await client.getBalance({ accountId: 'acct_grpc' })).toEqual({ balanceMicroLyd: 0 });
    expect(await client.addBalance({ accountId: 'acct_grpc', amountMicroLyd: 50_000 })).toEqual({ balanceMicroLyd: 50_000 });
    expect(await client.addBalance({ accountId: 'acct_grpc', amountMicroLyd: -50_000 })).toEqual({ balanceMicroLyd: 0 });
  });

  it('shows an account its charges newest first a page at a time, its totals per UTC day, and the prices (for the console)', async () => {
    const accountId = 'acct_statement';
    await client.addBalance({ accountId, amountMicroLyd: 1_000_000 });
    await client.extendCreditLine({ accountId, returnedTotalMicroLyd: 0, needMicroLyd: 0 });
    const bill = (requestId: string, promptTokens: number, completionTokens: number, usageEstimated: boolean): billingV1.Bill => ({
      requestId,
      accountId,
      model: 'vendor-v4-flash',
      paid: true,
      promptTokens,
      completionTokens,
      usageEstimated,
      heldMicroLyd: 1000,
      inputMicroLydPerMillion: 1_000_000,
      outputMicroLydPerMillion: 4_000_000,
      chargeMicroLyd: promptTokens + 4 * completionTokens,
      endReason: billingV1.EndReason.END_REASON_COMPLETE,
    });
    const free = { ...bill('req_statement_free', 7, 3, false), paid: false, heldMicroLyd: 0, chargeMicroLyd: 0 };
    const bills = [1, 2, 3].map((n) => bill(`req_statement_${n}`, 10 * n, n, n === 2));
    for (const one of [...bills, { ...free, inputMicroLydPerMillion: 0, outputMicroLydPerMillion: 0 }]) {
      const { outcomes } = await client.applyBills({ bills: [one], returns: [] });
      expect(outcomes).toMatchObject([{ applied: true }]);
    }

    const first = await client.listCharges({ accountId, limit: 3, before: '' });
    expect(first.charges.map((c) => [c.promptTokens, c.paid, c.usageEstimated])).toEqual([
      [7, false, false],
      [30, true, false],
      [20, true, true],
    ]);
    expect(first.charges[1]).toMatchObject({ model: 'vendor-v4-flash', completionTokens: 3, amountMicroLyd: 30 + 12 });
    expect(Date.parse(first.charges[0].created)).toBeGreaterThan(Date.now() - 60_000);
    const second = await client.listCharges({ accountId, limit: 3, before: first.next });
    expect(second.charges.map((c) => c.promptTokens)).toEqual([10]);
    expect(second.next).toBe('');
    expect((await client.listCharges({ accountId: 'acct_nobody', limit: 5, before: '' })).charges).toEqual([]);

    const { days } = await client.dailyTotals({ accountId, days: 3 });
    const today = new Date().toISOString().slice(0, 10);
    expect(days.map((d) => d.day)).toHaveLength(3);
    expect(days[2]).toEqual({ day: today, tokens: 10 + 1 + 20 + 2 + 30 + 3 + 7 + 3, amountMicroLyd: 14 + 28 + 42 });
    expect(days.slice(0, 2).map((d) => [d.tokens, d.amountMicroLyd])).toEqual([
      [0, 0],
      [0, 0],
    ]);

    expect((await client.listPrices({})).prices).toEqual(
      expect.arrayContaining([{ model: 'vendor-v4-flash', inputMicroLydPerMillion: 1_000_000, outputMicroLydPerMillion: 4_000_000 }]),
    );
    expect(await codeOf(client.listCharges({ accountId, limit: 0, before: '' }))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(client.dailyTotals({ accountId, days: 400 }))).toBe(status.INVALID_ARGUMENT);
  });
});
