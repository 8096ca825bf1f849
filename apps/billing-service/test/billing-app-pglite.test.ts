import { createPublicKey } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { billingV1 } from '@gw/contracts';
import { checkStatement } from '@gw/statement';
import { clientChain, RpcClient, rpcClient } from '@gw/service-kit';
import { BuiltApp, startBuiltApp, stopBuiltApp } from '@gw/testing';

// The embedded store is tested the way it runs: the built bundle (the test target depends on the
// build), in its own process (startBuiltApp).
const DEADLINE_MS = 10_000;

/** billing-service on PGlite under `dataDir`: DATABASE_URL is left out on purpose (unset selects PGlite). */
const startService = (dataDir: string): Promise<BuiltApp> =>
  startBuiltApp(
    'billing-service',
    {
      DATA_DIR: dataDir,
      BILLING_PORT: '0',
      BILLING_METRICS_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      // Last month final whatever the day: its statement is kept when first read.
      BILL_LATE_WINDOW_MS: '60000',
    },
    path.dirname(dataDir),
  );

describe('billing-service on the embedded PGlite', () => {
  let workDir: string;
  let running: BuiltApp | undefined;

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'billing-pglite-'));
  });

  afterAll(async () => {
    if (running && running.child.exitCode === null) await stopBuiltApp(running);
    await rm(workDir, { recursive: true, force: true });
  });

  const withClient = async <T>(
    port: number,
    fn: (client: RpcClient<billingV1.BillingClient, billingV1.BillingService>) => Promise<T>,
  ): Promise<T> => {
    const settings = { timeoutMs: DEADLINE_MS, chain: clientChain() };
    const client = rpcClient(billingV1.BillingClient, `127.0.0.1:${port}`, { kind: 'insecure' }, 'billing-service', settings);
    try {
      return await fn(client);
    } finally {
      client.close();
    }
  };

  it('keeps balances, prices and the audit trail across a stop and a new start on the same directory', async () => {
    const dataDir = path.join(workDir, 'data');
    running = await startService(dataDir);
    expect(running.store).toBe('pglite');
    await withClient(running.port, async (client) => {
      await client.addBalance({ accountId: 'acct_p', amountMicroLyd: 1_000_000 });
      const price = { model: 'vendor-v4-lite', inputMicroLydPerMillion: 500_000, outputMicroLydPerMillion: 2_000_000 };
      await client.setPrice({ price });
    });
    expect(await stopBuiltApp(running)).toBe(0);
    expect(existsSync(path.join(dataDir, 'billing', 'PG_VERSION'))).toBe(true);

    running = await startService(dataDir);
    await withClient(running.port, async (client) => {
      expect(await client.getBalance({ accountId: 'acct_p' })).toEqual({ balanceMicroLyd: 1_000_000 });
      // The audit trail kept the balance change and the price, and still checks after the restart.
      expect((await client.listAuditEntries({ accountId: 'acct_p', limit: 10 })).entries).toMatchObject([
        { seq: 1, action: 'balance-changed' },
      ]);
      expect((await client.verifyAuditTrail({})).check).toMatchObject({ entries: 2, ok: true, unkeyedEntries: 0 });
      expect((await client.auditMoney({})).violations).toEqual([]);
      // The credit line and the price watch of one replica alone (no other to notify).
      const line = await client.extendCreditLine({ accountId: 'acct_p', returnedTotalMicroLyd: 0, needMicroLyd: 0 });
      expect(line).toMatchObject({ grantedTotalMicroLyd: 1_000_000, balanceMicroLyd: 1_000_000 });
      const bill = {
        requestId: 'req_p',
        accountId: 'acct_p',
        model: 'vendor-v4-lite',
        paid: true,
        promptTokens: 2000,
        completionTokens: 100,
        usageEstimated: false,
        heldMicroLyd: 3000,
        inputMicroLydPerMillion: 500_000,
        outputMicroLydPerMillion: 2_000_000,
        chargeMicroLyd: 1200,
      };
      expect((await client.applyBills({ bills: [bill], returns: [] })).outcomes).toMatchObject([{ applied: true }]);
      expect(await client.getBalance({ accountId: 'acct_p' })).toEqual({ balanceMicroLyd: 998_800 });
      // Several in one call, in order: nothing more to lend; then 1,000 returned and lent again.
      const lines = [
        { accountId: 'acct_p', returnedTotalMicroLyd: 0, needMicroLyd: 0 },
        { accountId: 'acct_p', returnedTotalMicroLyd: 1000, needMicroLyd: 0 },
      ];
      expect((await client.extendCreditLines({ lines })).outcomes).toMatchObject([
        { line: { grantedTotalMicroLyd: 1_000_000, returnedTotalMicroLyd: 0 }, errorCode: 0 },
        { line: { grantedTotalMicroLyd: 1_001_000, returnedTotalMicroLyd: 1000 }, errorCode: 0 },
      ]);
      const second = { ...bill, requestId: 'req_p2' };
      expect((await client.applyBills({ bills: [second], returns: [] })).outcomes).toMatchObject([{ applied: true }]);
      // A bill admitted 100 days ago is set aside, then filed by the operator under this month.
      const late = { ...second, requestId: 'req_p3', admittedAtMs: Date.now() - 100 * 24 * 3600_000 };
      expect((await client.applyBills({ bills: [late], returns: [] })).outcomes).toMatchObject([{ applied: false, setAside: true }]);
      expect((await client.listSetAsideBills({ after: '', limit: 10 })).bills).toMatchObject([{ reason: 'too-late' }]);
      expect(await client.fileSetAsideBill({ requestId: 'req_p3', reason: '' })).toMatchObject({ chargedMicroLyd: 1200 });
      const watch = client.streams.watchPrices();
      watch.on('error', () => undefined);
      const table = await new Promise<billingV1.WatchPricesResponse>((resolve) => watch.once('data', resolve));
      watch.cancel();
      expect(table).toMatchObject({ full: true, prices: expect.arrayContaining([expect.objectContaining({ model: 'vendor-v4-lite' })]) });
      // Statements: this month's made from the books, last month's kept when first read and then given as kept; signed with the key made in DATA_DIR.
      const publicKey = createPublicKey((await client.getStatementKey({})).publicKeyPem);
      const read = async (month: string) => {
        let text = '';
        for await (const part of client.streams.readStatement({
          accountId: 'acct_p',
          month,
        }) as AsyncIterable<billingV1.ReadStatementResponse>)
          text += part.text;
        return text;
      };
      const now = new Date();
      const [thisMonth, lastMonth] = [0, -1].map((k) =>
        new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + k, 1)).toISOString().slice(0, 7),
      );
      expect(checkStatement(await read(thisMonth), publicKey)).toMatchObject({
        ok: true,
        summary: { status: 'provisional', closingMicro: (await client.getBalance({ accountId: 'acct_p' })).balanceMicroLyd },
      });
      const last = await read(lastMonth);
      expect(checkStatement(last, publicKey)).toMatchObject({ ok: true, summary: { status: 'final', movements: 0 } });
      expect(await read(lastMonth)).toBe(last);
      expect(existsSync(path.join(dataDir, 'statement.key'))).toBe(true);
    });
    expect(await stopBuiltApp(running)).toBe(0);
  }, 120_000);
});
