import { status } from '@grpc/grpc-js';
import { Client as PgClient } from 'pg';
import { billingV1 } from '@gw/contracts';
import { clientChain, createLogger, GrpcSecurity, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, TestDatabase, testTlsDir } from '@gw/testing';
import { BillingApp, startBillingApp } from '../src/billing-app';
import { loadConfig } from '../src/config';

const DEADLINE_MS = 5000;
const mtls = (identity: string): GrpcSecurity => ({ kind: 'mtls', dir: testTlsDir(identity), refreshMs: 60_000 });
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };

/** billing-service's audit trail over mutual TLS: balance changes, prices and quota-service's free-tier changes, and the walk. */
/** What a balance change's link adds to its details: its entry, and its one row's count and digest. */
const linkOf = (entryId: number) => ({ entryId, rows: 1, digest: expect.stringMatching(/^[0-9a-f]{64}$/) });

describe('billing-service audit trail (gRPC over mutual TLS, Postgres)', () => {
  let testDb: TestDatabase;
  let app: BillingApp;
  let pg: PgClient;
  let ctl: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  let consoleBilling: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  let quota: RpcClient<billingV1.BillingClient, billingV1.BillingService>;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const config = loadConfig({
      BILLING_METRICS_PORT: '0',
      BILLING_PORT: '0',
      BIND_HOST: '127.0.0.1',
      TLS_DIR: testTlsDir('billing-service'),
      DATABASE_URL: testDb.url,
      SHUTDOWN_GRACE_MS: '1000',
    });
    app = await startBillingApp(
      config,
      createLogger('billing-service', 'error', () => undefined),
    );
    const address = `127.0.0.1:${app.port}`;
    ctl = rpcClient(billingV1.BillingClient, address, mtls('ctl'), 'billing-service', SETTINGS);
    consoleBilling = rpcClient(billingV1.BillingClient, address, mtls('console'), 'billing-service', SETTINGS);
    quota = rpcClient(billingV1.BillingClient, address, mtls('quota-service'), 'billing-service', SETTINGS);
    pg = new PgClient({ connectionString: testDb.url });
    await pg.connect();
    // The test certificates are made on first use: RSA keys take seconds.
  }, 60_000);

  afterAll(async () => {
    [ctl, consoleBilling, quota].forEach((c) => c?.close());
    await pg?.end();
    try {
      await app?.stop();
    } finally {
      await testDb?.drop();
    }
  });

  const verify = async () => (await ctl.verifyAuditTrail({})).check;
  const entriesOf = async (accountId: string) => (await consoleBilling.listAuditEntries({ accountId, limit: 50 })).entries;
  const freeTier = {
    dailyTokens: 1000,
    poolTokens: 5000,
    paused: true,
    enabled: true,
    changed: ['daily_tokens', 'paused'],
    actor: 'ctl',
    reason: 'abuse wave',
  };

  it('records balance changes once each, prices and free-tier changes, with who asked and why', async () => {
    const accountId = 'acct_audited';
    const note = { reason: 'invoice 7 paid', idempotencyKey: 'inv-7' };
    await ctl.addBalance({ accountId, amountMicroLyd: 2_500_000, note });
    await ctl.addBalance({ accountId, amountMicroLyd: 2_500_000, note });
    await ctl.addBalance({ accountId, amountMicroLyd: -500_000, note: { reason: 'refund', idempotencyKey: '' } });
    await expect(ctl.addBalance({ accountId, amountMicroLyd: -9_000_000, note: undefined })).rejects.toMatchObject({
      code: status.FAILED_PRECONDITION,
    });
    await ctl.setPrice({
      price: { model: 'vendor-v4-flash', inputMicroLydPerMillion: 3, outputMicroLydPerMillion: 9 },
      reason: 'new tariff',
    });
    expect(await quota.recordFreeTierChange(freeTier)).toEqual({ seq: 4 });

    const entries = await entriesOf(accountId);
    expect(entries.map((e) => [e.seq, e.action, e.actor, e.reason, JSON.parse(e.detailsJson)])).toEqual([
      [2, 'balance-changed', 'ctl', 'refund', { amountMicro: -500_000, balanceMicro: 2_000_000, idempotencyKey: null, ...linkOf(2) }],
      [
        1,
        'balance-changed',
        'ctl',
        'invoice 7 paid',
        { amountMicro: 2_500_000, balanceMicro: 2_500_000, idempotencyKey: 'inv-7', ...linkOf(1) },
      ],
    ]);
    const { rows } = await pg.query(
      'SELECT seq::int, account_id, action, actor, reason, details FROM billing.audit_log WHERE seq > 2 ORDER BY seq',
    );
    expect(rows).toEqual([
      {
        seq: 3,
        account_id: null,
        action: 'price-set',
        actor: 'ctl',
        reason: 'new tariff',
        details: { model: 'vendor-v4-flash', inputMicroPerMillion: 3, outputMicroPerMillion: 9 },
      },
      {
        seq: 4,
        account_id: null,
        action: 'free-tier-set',
        actor: 'ctl',
        reason: 'abuse wave',
        details: { dailyTokens: 1000, poolTokens: 5000, paused: true, enabled: true, changed: 'daily_tokens,paused', via: 'quota-service' },
      },
    ]);
    expect(await verify()).toMatchObject({ entries: 4, ok: true });
  });

  it('takes free-tier changes only from quota-service, and answers the walk only to the operator', async () => {
    await expect(ctl.recordFreeTierChange(freeTier)).rejects.toMatchObject({
      code: status.PERMISSION_DENIED,
    });
    await expect(quota.recordFreeTierChange({ ...freeTier, changed: ['everything'] })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    await expect(consoleBilling.verifyAuditTrail({})).rejects.toMatchObject({
      code: status.PERMISSION_DENIED,
    });
    await expect(
      ctl.setPrice({ price: { model: 'vendor-v4-pro', inputMicroLydPerMillion: 1, outputMicroLydPerMillion: 1 }, reason: 'x'.repeat(501) }),
    ).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
  });

  it('lets only the operator see and decide set-aside bills, and records each decision with who made it and why', async () => {
    const accountId = 'acct_set_aside';
    await ctl.addBalance({ accountId, amountMicroLyd: 1_000_000, note: undefined });
    const late = (requestId: string): billingV1.Bill => ({
      requestId,
      accountId,
      model: 'vendor-v4-flash',
      paid: true,
      promptTokens: 100,
      completionTokens: 100,
      usageEstimated: false,
      heldMicroLyd: 1_000_000,
      inputMicroLydPerMillion: 1_000_000,
      outputMicroLydPerMillion: 4_000_000,
      chargeMicroLyd: 500,
      admittedAtMs: Date.now() - 100 * 24 * 3600_000,
    });
    const { outcomes } = await quota.applyBills({ bills: [late('req_late_1'), late('req_late_2')], returns: [] });
    expect(outcomes.map((o) => o.setAside)).toEqual([true, true]);
    for (const caller of [quota, consoleBilling]) {
      await expect(caller.listSetAsideBills({ after: '', limit: 10 })).rejects.toMatchObject({ code: status.PERMISSION_DENIED });
      await expect(caller.fileSetAsideBill({ requestId: 'req_late_1', reason: '' })).rejects.toMatchObject({
        code: status.PERMISSION_DENIED,
      });
      await expect(caller.writeOffSetAsideBill({ requestId: 'req_late_1', reason: 'x' })).rejects.toMatchObject({
        code: status.PERMISSION_DENIED,
      });
    }
    expect((await ctl.listSetAsideBills({ after: '', limit: 10 })).bills.map((b) => b.bill?.requestId)).toEqual([
      'req_late_1',
      'req_late_2',
    ]);
    await ctl.fileSetAsideBill({ requestId: 'req_late_1', reason: 'billing was down' });
    await ctl.writeOffSetAsideBill({ requestId: 'req_late_2', reason: 'refunded by hand' });
    const entries = await entriesOf(accountId);
    expect(entries.slice(0, 2).map((e) => [e.action, e.actor, e.reason, JSON.parse(e.detailsJson)])).toEqual([
      ['set-aside-bill-written-off', 'ctl', 'refunded by hand', { requestId: 'req_late_2', chargeMicro: 500, reason: 'too-late' }],
      [
        'set-aside-bill-filed',
        'ctl',
        'billing was down',
        {
          requestId: 'req_late_1',
          month: new Date().toISOString().slice(0, 7),
          chargeMicro: 500,
          chargedMicro: 500,
          shortfallMicro: 0,
          rows: 1,
          digest: expect.any(String),
        },
      ],
    ]);
    expect(await verify()).toMatchObject({ ok: true });
  });

  it('names the entry after one deleted with SQL, then an edited one before it', async () => {
    await pg.query('DELETE FROM billing.audit_log WHERE seq = 3');
    expect(await verify()).toMatchObject({
      entries: 6,
      ok: false,
      firstBad: { seq: 4, problem: 'missing', detail: 'entry 3 is missing before it' },
    });
    await pg.query("UPDATE billing.audit_log SET reason = 'typo' WHERE seq = 2");
    expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 2, problem: 'edited' } });
  });
});
