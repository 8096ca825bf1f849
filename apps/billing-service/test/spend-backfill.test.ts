import { randomUUID } from 'node:crypto';
import { billingV1 } from '@gw/contracts';
import { SPEND_RULE } from '@gw/money';
import { Database, openDatabase, runMigrations } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { BillingApp } from '../src/billing-app';
import { BILLING_MIGRATIONS } from '../src/store/migrations/billing-migrations';
import { billingTestClient, billingTestConfig, BillingTestClient, startBillingTestApp } from './billing-test-db';

const DAY_MS = 86_400_000;
/** A steady account's bill every 10 minutes: 6 an hour, 2,000,004 micro-LYD in every clock hour. */
const STEADY_BILL_MICRO = 333_334;
const STEADY_HOUR_MICRO = 6 * STEADY_BILL_MICRO;
/** The pro model's prices: a bill of 50,000 prompt and 10,000 completion tokens charges 0.36 LYD. */
const PRO = { inputMicroLydPerMillion: 4_000_000, outputMicroLydPerMillion: 16_000_000 };

/**
 * A database of the release before the spend watch, its ledger holding weeks of bills (naming no
 * key, as every bill before it): migration 048 fills the watch's buckets and keys from the ledger,
 * so the first hour after the upgrade is judged against those weeks. An account spending at its
 * usual rate is not flagged, a key billed days ago is not idle, and a leak and a key idle for
 * weeks are still flagged.
 */
describe('the spend watch started from the ledger on upgrade (Postgres, gRPC)', () => {
  let testDb: TestDatabase;
  let db: Database;
  let app: BillingApp;
  let client: BillingTestClient;
  const [steady, idle, paused] = ['acct_steady', 'acct_idle', 'acct_paused'];

  /** A row as the ledger of the release before keeps it, admitted `agoSql` before now. */
  const ledgerRow = (accountId: string, agoSql: string, amountMicro: number, paid = true, keyId: string | null = null) =>
    db.query(
      `INSERT INTO billing.ledger (request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million,
         output_micro_per_million, amount_micro, paid, usage_estimated, request_at, key_id)
       VALUES ($1, $2, 'vendor-v4-pro', 1000, 100, 4000000, 16000000, $3, $4, false, now() - $5::interval, $6)`,
      [randomUUID(), accountId, amountMicro, paid, agoSql, keyId],
    );

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
    await runMigrations(
      db,
      'billing',
      BILLING_MIGRATIONS.filter((m) => m.id < '048-spend-watch'),
    );
    // The months of the last 50 days, as the ledger of a running release has them.
    await db.query('SELECT billing.add_ledger_month(now() - make_interval(days => d)) FROM generate_series(0, 50, 10) d');
    // 10 days at 2 LYD an hour, up to now: a bill every 10 minutes.
    await db.query(
      `INSERT INTO billing.ledger (request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million,
         output_micro_per_million, amount_micro, paid, usage_estimated, request_at)
       SELECT 'steady-' || i, $1, 'vendor-v4-pro', 1000, 100, 4000000, 16000000, $2, true, false, now() - make_interval(mins => 10 * i)
       FROM generate_series(0, 10 * 144) i`,
      [steady, STEADY_BILL_MICRO],
    );
    // Left out: an unpaid bill, and one older than the 42 days the watch keeps.
    await ledgerRow(steady, '3 days', 50_000_000, false);
    await ledgerRow(steady, '50 days', 50_000_000);
    // A key of this release (045 onwards) already named in the ledger, before the 35 days of history the rule reads.
    await ledgerRow(steady, '40 days', 100_000, true, 'key-early');
    await ledgerRow(idle, '38 days', 200_000);
    await ledgerRow(paused, '20 days', 200_000);
    await runMigrations(db, 'billing', BILLING_MIGRATIONS);

    app = await startBillingTestApp(billingTestConfig(testDb.url));
    client = billingTestClient(app, 10_000);
    for (const accountId of [steady, idle, paused]) await client.addBalance({ accountId, amountMicroLyd: 1000 * 1_000_000 });
  }, 30_000);
  afterAll(async () => {
    client?.close();
    await app?.stop();
    await db?.close();
    await testDb?.drop();
  });

  /** A paid bill of the pro model admitted now, charging 0.36 LYD. */
  const bill = (accountId: string, keyId?: string): billingV1.Bill => ({
    requestId: randomUUID(),
    accountId,
    model: 'vendor-v4-pro',
    paid: true,
    promptTokens: 50_000,
    completionTokens: 10_000,
    usageEstimated: false,
    heldMicroLyd: 10_000_000,
    ...PRO,
    chargeMicroLyd: 360_000,
    admittedAtMs: Date.now(),
    ...(keyId !== undefined ? { keyId } : {}),
  });
  const apply = async (bills: billingV1.Bill[]) => {
    const { outcomes } = await client.applyBills({ bills, returns: [] });
    expect(outcomes.every((o) => o.applied)).toBe(true);
  };
  const openAlerts = async (accountId: string) => (await client.listSpendAlerts({ accountId, includeClosed: false, limit: 100 })).alerts;

  it("fills each key's hours, last 2 hours' slots and first and last bill from the paid rows of the last 42 days, a row naming no key under ''", async () => {
    const sums = await db.query<{ key_id: string; spend: string; requests: string }>(
      `SELECT key_id, sum(spend_micro)::text AS spend, sum(requests)::text AS requests FROM (
         SELECT key_id, spend_micro, requests FROM billing.spend_hours WHERE account_id = $1
         UNION ALL SELECT key_id, spend_micro, requests FROM billing.spend_slots WHERE account_id = $1) b
       GROUP BY key_id ORDER BY key_id`,
      [steady],
    );
    expect(sums.rows).toEqual([
      { key_id: '', spend: `${1441 * STEADY_BILL_MICRO}`, requests: '1441' },
      { key_id: 'key-early', spend: '100000', requests: '1' },
    ]);
    // Each complete hour as the watch would have rolled it up; the last 2 hours still in 5-minute slots.
    const hours = await db.query<{ spend: string; hours: number }>(
      `SELECT spend_micro::text AS spend, count(*)::int AS hours FROM billing.spend_hours
       WHERE account_id = $1 AND key_id = '' AND hour_at BETWEEN now() - interval '9 days' AND now() - interval '3 hours'
       GROUP BY spend_micro`,
      [steady],
    );
    expect(hours.rows).toEqual([{ spend: `${STEADY_HOUR_MICRO}`, hours: expect.any(Number) }]);
    expect(hours.rows[0].hours).toBeGreaterThanOrEqual(9 * 24 - 4);
    // The bills of the last 2 hours but the first (a slot begun before them), one a slot.
    const slots = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM billing.spend_slots WHERE account_id = $1', [steady]);
    expect(slots.rows).toEqual([{ n: 12 }]);
    const keys = await db.query<{ account_id: string; key_id: string; rested_days: number; woke: boolean }>(
      `SELECT account_id, key_id, round(extract(epoch FROM now() - last_billed_at) / 86400)::int AS rested_days, woke_at IS NOT NULL AS woke
       FROM billing.spend_keys WHERE account_id = ANY ($1::text[]) ORDER BY account_id, key_id`,
      [[steady, idle, paused]],
    );
    expect(keys.rows).toEqual([
      { account_id: idle, key_id: '', rested_days: 38, woke: false },
      { account_id: paused, key_id: '', rested_days: 20, woke: false },
      { account_id: steady, key_id: '', rested_days: 0, woke: false },
      { account_id: steady, key_id: 'key-early', rested_days: 40, woke: false },
    ]);
  });

  it("does not flag an account spending an hour's worth at once, nor a key billed 20 days ago; flags a jump past 3 times the hours before, and a key idle 38 days", async () => {
    // An hour's worth in one batch (2.16 LYD, past the 1 LYD floor): the last hour then spends 4.16 LYD, under 3 times 2 LYD.
    await apply(Array.from({ length: 6 }, () => bill(steady, 'key-live')));
    await apply([bill(paused)]);
    expect(await openAlerts(steady)).toEqual([]);
    expect(await openAlerts(paused)).toEqual([]);
    // The paused key's rest is measured from its last bill in the ledger.
    const woke = await db.query<{ rested_days: number }>(
      `SELECT round(rested_ms / 86400000.0)::int AS rested_days FROM billing.spend_keys WHERE account_id = $1 AND key_id = ''`,
      [paused],
    );
    expect(woke.rows).toEqual([{ rested_days: 20 }]);

    await apply(Array.from({ length: 8 }, () => bill(steady, 'key-leaked')));
    const [jump, ...more] = await openAlerts(steady);
    expect(more).toEqual([]);
    expect(jump).toMatchObject({
      keyId: 'key-leaked',
      reason: 'spend-jump',
      usualHourMicroLyd: STEADY_HOUR_MICRO,
      thresholdMicroLyd: SPEND_RULE.multiple * STEADY_HOUR_MICRO,
    });
    expect(jump.historyHours).toBeGreaterThanOrEqual(10 * 24 - 2);

    await apply([bill(idle)]);
    const [woken] = await openAlerts(idle);
    expect(woken).toMatchObject({ keyId: '', reason: 'idle-key' });
    expect(woken.restedSeconds).toBeGreaterThanOrEqual((38 * DAY_MS) / 1000 - 60);
  });
});
