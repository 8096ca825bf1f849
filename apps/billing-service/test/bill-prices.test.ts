import { randomUUID } from 'node:crypto';
import { billingV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, openDatabase, renderMetrics, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { BillingApp, startBillingApp } from '../src/billing-app';
import { loadConfig } from '../src/config';

const DEADLINE_MS = 10_000;
/** PRICE_PROPAGATION_MS's default. */
const WINDOW_MS = 30_000;

/**
 * A paid bill that carries its admitted time is filed only at prices its model had in force then
 * (or within the propagation window of it): one at other prices (quota-service, or whoever holds
 * its certificate, sending the prices as 0) is set aside as price-mismatch for the operator,
 * charges nothing, and is not dropped.
 */
describe('bills checked against the prices in force when admitted, over billing.v1', () => {
  let testDb: TestDatabase;
  let db: Database;
  let app: BillingApp;
  let client: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  const logs: string[] = [];

  const apply = async (bills: billingV1.Bill[]) => (await client.applyBills({ bills, returns: [] })).outcomes;
  /** A bill of `tokens` prompt and completion tokens, its charge worked out from its prices as quota-service does. */
  const bill = (accountId: string, tokens: number, overrides: Partial<billingV1.Bill> = {}): billingV1.Bill => {
    const b: billingV1.Bill = {
      requestId: randomUUID(),
      accountId,
      model: 'vendor-v4-flash',
      paid: true,
      promptTokens: tokens,
      completionTokens: tokens,
      usageEstimated: false,
      heldMicroLyd: 10_000_000,
      inputMicroLydPerMillion: 1_000_000,
      outputMicroLydPerMillion: 4_000_000,
      chargeMicroLyd: 0,
      admittedAtMs: Date.now(),
      ...overrides,
    };
    const cost = (tokens * b.inputMicroLydPerMillion + tokens * b.outputMicroLydPerMillion) / 1_000_000;
    return { ...b, chargeMicroLyd: b.paid ? Math.min(Math.ceil(cost), b.heldMicroLyd) : 0, ...overrides };
  };
  const balanceOf = async (accountId: string) => (await client.getBalance({ accountId })).balanceMicroLyd;
  const ledgerRows = async (requestId: string) =>
    (
      await db.query<{ amount: string; estimated: boolean }>(
        'SELECT amount_micro::text AS amount, usage_estimated AS estimated FROM billing.ledger WHERE request_id = $1',
        [requestId],
      )
    ).rows;
  /** What `ctl bills set-aside` lists of this request. */
  const setAsideOf = async (requestId: string) =>
    (await client.listSetAsideBills({ after: '', limit: 1000 })).bills.find((s) => s.bill?.requestId === requestId);
  /** billing_bills_set_aside_total of paid price-mismatch bills, in this process's registry. */
  const mismatchesCounted = async () => {
    const line = (await renderMetrics())
      .split('\n')
      .find((l) => l.startsWith('billing_bills_set_aside_total{') && l.includes('reason="price-mismatch"') && l.includes('payment="paid"'));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  const setAside = { applied: false, repeated: false, setAside: true, shortfallMicroLyd: 0, errorCode: 0, errorMessage: '' };
  const charged = { applied: true, repeated: false, setAside: false, shortfallMicroLyd: 0, errorCode: 0, errorMessage: '' };

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
    app = await startBillingApp(
      loadConfig({
        BILLING_METRICS_PORT: '0',
        BILLING_PORT: '0',
        BIND_HOST: '127.0.0.1',
        GRPC_INSECURE: 'true',
        DATABASE_URL: testDb.url,
      }),
      createLogger('billing-service', 'warn', (line) => logs.push(line)),
    );
    client = rpcClient(billingV1.BillingClient, `127.0.0.1:${app.port}`, { kind: 'insecure' }, 'billing-service', {
      timeoutMs: DEADLINE_MS,
      chain: clientChain(),
    });
  });

  afterAll(async () => {
    client?.close();
    await app?.stop();
    await db?.close();
    await testDb?.drop();
  });

  it('charges a bill at the prices in force; sets aside one whose prices were set to 0, charging nothing, listed and logged', async () => {
    await client.addBalance({ accountId: 'acct_forged', amountMicroLyd: 10_000_000 });
    const right = bill('acct_forged', 10_000);
    const forged = bill('acct_forged', 10_000, { inputMicroLydPerMillion: 0, outputMicroLydPerMillion: 0 });
    expect(forged.chargeMicroLyd).toBe(0);
    const countedBefore = await mismatchesCounted();
    expect(await apply([right, forged])).toEqual([charged, setAside]);
    expect(await mismatchesCounted()).toBe(countedBefore + 1);
    expect(await balanceOf('acct_forged')).toBe(10_000_000 - 50_000);
    expect(await ledgerRows(right.requestId)).toEqual([{ amount: '50000', estimated: false }]);
    expect(await ledgerRows(forged.requestId)).toEqual([]);
    expect(await setAsideOf(forged.requestId)).toMatchObject({
      reason: 'price-mismatch',
      deliveries: 1,
      bill: { inputMicroLydPerMillion: 0, outputMicroLydPerMillion: 0, admittedAtMs: forged.admittedAtMs },
    });
    expect(await setAsideOf(right.requestId)).toBeUndefined();
    const warned = logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((e) => e.billingId === forged.requestId);
    expect(warned.map((e) => [e.level, e.reason])).toEqual([['warn', 'price-mismatch']]);

    // Sent again, it stays set aside (never "repeated", never charged); written off, it is never charged.
    expect(await apply([forged])).toEqual([setAside]);
    await client.writeOffSetAsideBill({ requestId: forged.requestId, reason: 'forged prices' });
    expect(await balanceOf('acct_forged')).toBe(10_000_000 - 50_000);
  });

  it('checks neither a free bill nor one without an admitted time (an older quota-service)', async () => {
    await client.addBalance({ accountId: 'acct_unchecked', amountMicroLyd: 10_000_000 });
    const older = bill('acct_unchecked', 1000, { admittedAtMs: undefined, inputMicroLydPerMillion: 2_000_000 });
    const free = bill('acct_unchecked', 1000, { paid: false, heldMicroLyd: 0, inputMicroLydPerMillion: 0, outputMicroLydPerMillion: 0 });
    expect(await apply([older, free])).toEqual([charged, charged]);
    expect(await balanceOf('acct_unchecked')).toBe(10_000_000 - 6000);
  });

  it('sets aside the real usage at prices not in force instead of letting it correct the estimate; filed, it corrects that estimate', async () => {
    await client.addBalance({ accountId: 'acct_estimate', amountMicroLyd: 10_000_000 });
    const estimate = bill('acct_estimate', 1000, { usageEstimated: true });
    expect(await apply([estimate])).toEqual([charged]);
    const real = { ...bill('acct_estimate', 3000, { outputMicroLydPerMillion: 0 }), requestId: estimate.requestId };
    real.admittedAtMs = estimate.admittedAtMs;
    expect(await apply([real])).toEqual([setAside]);
    expect(await ledgerRows(estimate.requestId)).toEqual([{ amount: '5000', estimated: true }]);
    expect(await balanceOf('acct_estimate')).toBe(10_000_000 - 5000);
    expect(await setAsideOf(estimate.requestId)).toMatchObject({ reason: 'price-mismatch' });

    const filed = await client.fileSetAsideBill({ requestId: estimate.requestId, reason: 'checked with the provider' });
    expect(filed).toMatchObject({ corrected: true, chargedMicroLyd: 3000 - 5000 });
    expect(await ledgerRows(estimate.requestId)).toEqual([{ amount: '3000', estimated: false }]);
    expect(await balanceOf('acct_estimate')).toBe(10_000_000 - 3000);
  });

  it('after SetPrice, takes the old prices within the propagation window and sets them aside after it; the new ones from the window before', async () => {
    await client.addBalance({ accountId: 'acct_change', amountMicroLyd: 100_000_000 });
    const old = { model: 'vendor-v4-pro', inputMicroLydPerMillion: 4_000_000, outputMicroLydPerMillion: 16_000_000 };
    const next = { ...old, outputMicroLydPerMillion: 20_000_000 };
    await client.setPrice({ price: next, reason: 'provider raised its price' });
    const { rows } = await db.query<{ at: Date }>(
      'SELECT in_force_from AS at FROM billing.price_history WHERE model = $1 ORDER BY version DESC LIMIT 1',
      [old.model],
    );
    const changedAt = rows[0].at.getTime();
    // Just after the change: a quota-service replica may not have applied it yet.
    const oldJustAfter = bill('acct_change', 1000, { ...old, admittedAtMs: changedAt + 1 });
    const oldLastMoment = bill('acct_change', 1000, { ...old, admittedAtMs: changedAt + WINDOW_MS - 1 });
    const newJustAfter = bill('acct_change', 1000, { ...next, admittedAtMs: changedAt + 1 });
    // After the window (still well inside BILL_AHEAD_MS of the clock): every replica has the new prices by then.
    const oldAfterWindow = bill('acct_change', 1000, { ...old, admittedAtMs: changedAt + WINDOW_MS + 1000 });
    const newAfterWindow = bill('acct_change', 1000, { ...next, admittedAtMs: changedAt + WINDOW_MS + 1000 });
    // Admitted by a Redis clock a little behind PostgreSQL's: the new prices just before their change.
    const newJustBefore = bill('acct_change', 1000, { ...next, admittedAtMs: changedAt - 1000 });
    // Longer before the change, its new prices were in force nowhere.
    const newBefore = bill('acct_change', 1000, { ...next, admittedAtMs: changedAt - WINDOW_MS - 1000 });
    const oldBefore = bill('acct_change', 1000, { ...old, admittedAtMs: changedAt - 1000 });
    const all = [oldJustAfter, oldLastMoment, newJustAfter, oldAfterWindow, newAfterWindow, newJustBefore, newBefore, oldBefore];
    expect(await apply(all)).toEqual([charged, charged, charged, setAside, charged, charged, setAside, charged]);
    expect(await balanceOf('acct_change')).toBe(100_000_000 - 3 * 20_000 - 3 * 24_000);
    expect((await setAsideOf(oldAfterWindow.requestId))?.reason).toBe('price-mismatch');
    expect((await setAsideOf(newBefore.requestId))?.reason).toBe('price-mismatch');
  });
});
