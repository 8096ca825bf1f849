import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { HOUR_MS, SPEND_RULE } from '@gw/money';
import { renderMetrics } from '@gw/service-kit';
import { PgSpendBooks } from '../src/store/pg-spend-books';
import { BillingTestApps, codeOf, startBillingTestApps } from './billing-test-db';

const DEADLINE_MS = 10_000;
const DAY_MS = 86_400_000;
/** The pro model's prices: a bill of 50,000 prompt and 10,000 completion tokens charges 0.36 LYD. */
const PRO = { inputMicroLydPerMillion: 4_000_000, outputMicroLydPerMillion: 16_000_000 };
const BIG_BILL_MICRO = 360_000;

/**
 * Each bill names the key its request was made with; billing-service keeps it in the ledger and
 * each key's spend in buckets, in the transaction that applies the bills, and applies the leaked-key
 * rule (SPEND_RULE) to the batch's accounts: an alert is raised once (also with two replicas
 * applying at once), counted, listed for the console and the operator, and closed once dismissed
 * or its key revoked. A history of weeks is written by SQL, as a test cannot wait for it.
 */
describe('spend alerts: which key spent what, and a leaked key caught, over billing.v1', () => {
  let t: BillingTestApps;
  const client = (i = 0) => t.clients[i];

  beforeAll(async () => {
    t = await startBillingTestApps(2, {}, DEADLINE_MS);
  }, 30_000);
  afterAll(async () => t?.close());

  /** A paid bill of the pro model admitted now, charging `BIG_BILL_MICRO` unless its tokens say otherwise. */
  const bill = (accountId: string, keyId: string | undefined, tokens = { prompt: 50_000, completion: 10_000 }): billingV1.Bill => ({
    requestId: randomUUID(),
    accountId,
    model: 'vendor-v4-pro',
    paid: true,
    promptTokens: tokens.prompt,
    completionTokens: tokens.completion,
    usageEstimated: false,
    heldMicroLyd: 10_000_000,
    ...PRO,
    chargeMicroLyd: Math.ceil((tokens.prompt * PRO.inputMicroLydPerMillion + tokens.completion * PRO.outputMicroLydPerMillion) / 1e6),
    admittedAtMs: Date.now(),
    ...(keyId !== undefined ? { keyId } : {}),
  });
  const apply = async (bills: billingV1.Bill[], replica = 0) => (await client(replica).applyBills({ bills, returns: [] })).outcomes;
  const funded = async (lyd = 1000) => {
    const accountId = `acct_${randomUUID()}`;
    await client().addBalance({ accountId, amountMicroLyd: lyd * 1_000_000 });
    return accountId;
  };
  const openAlerts = async (accountId: string) => (await client().listSpendAlerts({ accountId, includeClosed: false, limit: 100 })).alerts;
  /** `spendMicro` an hour in each hour the rule reads of 28 days (the hour running and the one before left out), as billing-service keeps them. */
  const history = async (accountId: string, keyId: string, spendMicro: number) =>
    t.db.query(
      `INSERT INTO billing.spend_hours (account_id, hour_at, key_id, spend_micro, requests)
       SELECT $1, date_bin('1 hour', now(), timestamptz 'epoch') - make_interval(hours => h), $2, $3, 10 FROM generate_series(2, 28 * 24) h`,
      [accountId, keyId, spendMicro],
    );
  const metric = async (line: string) => {
    const found = (await renderMetrics()).split('\n').find((l) => l.startsWith(line));
    return found ? Number(found.split(' ').pop()) : 0;
  };

  it("keeps each bill's key in the ledger and each key's spend in its buckets, rolled up into hours once; a bill naming no key (an older release's) goes under none", async () => {
    const accountId = await funded();
    const [a1, a2, b, none] = [bill(accountId, 'key-a'), bill(accountId, 'key-a'), bill(accountId, 'key-b'), bill(accountId, undefined)];
    expect((await apply([a1, a2, b, none])).every((o) => o.applied)).toBe(true);
    const { rows: ledger } = await t.db.query<{ request_id: string; key_id: string | null }>(
      'SELECT request_id, key_id FROM billing.ledger WHERE account_id = $1',
      [accountId],
    );
    expect(Object.fromEntries(ledger.map((r) => [r.request_id, r.key_id]))).toEqual({
      [a1.requestId]: 'key-a',
      [a2.requestId]: 'key-a',
      [b.requestId]: 'key-b',
      [none.requestId]: null,
    });
    const byKey = async (table: string) =>
      (
        await t.db.query<{ key_id: string; spend: string; requests: string }>(
          `SELECT key_id, sum(spend_micro)::text AS spend, sum(requests)::text AS requests FROM billing.${table}
           WHERE account_id = $1 GROUP BY key_id ORDER BY key_id`,
          [accountId],
        )
      ).rows;
    const spent = [
      { key_id: '', spend: `${BIG_BILL_MICRO}`, requests: '1' },
      { key_id: 'key-a', spend: `${2 * BIG_BILL_MICRO}`, requests: '2' },
      { key_id: 'key-b', spend: `${BIG_BILL_MICRO}`, requests: '1' },
    ];
    expect(await byKey('spend_slots')).toEqual(spent);
    // Sent again, a bill is repeated: its spend is not counted twice.
    expect(await apply([a1])).toMatchObject([{ applied: false, repeated: true }]);
    expect(await byKey('spend_slots')).toEqual(spent);
    // Rolled up into their hours once old enough (here: every bucket), each once, also by two replicas at once.
    const books = new PgSpendBooks(t.db);
    await Promise.all([books.rollUp(Date.now() + HOUR_MS, 0), books.rollUp(Date.now() + HOUR_MS, 0)]);
    expect(await byKey('spend_slots')).toEqual([]);
    expect(await byKey('spend_hours')).toEqual(spent);
  });

  it('raises one alert naming the key whose spend jumped past the usual hour, with its figures, counted once, however many batches and replicas', async () => {
    const accountId = await funded();
    await history(accountId, 'key-steady', 20_000);
    // Three hours ago, a 5-minute bucket not yet rolled up adds 10,000 to its hour: the busiest.
    await t.db.query(
      `INSERT INTO billing.spend_slots (account_id, slot_at, key_id, spend_micro, requests)
       VALUES ($1, date_bin('1 hour', now(), timestamptz 'epoch') - interval '3 hours', 'key-steady', 10000, 1)`,
      [accountId],
    );
    const usualMicro = 30_000;
    const raisedBefore = await metric('billing_spend_alerts_total{reason="spend-jump"}');
    // Under the floor nothing is raised: a few of the key's usual requests.
    await apply([bill(accountId, 'key-steady', { prompt: 1000, completion: 500 })]);
    expect(await openAlerts(accountId)).toEqual([]);
    // The leak: batches on both replicas at once, each past the floor.
    const batches = Array.from({ length: 6 }, () => [bill(accountId, 'key-leaked'), bill(accountId, 'key-leaked')]);
    await Promise.all(batches.map((batch, i) => apply(batch, i % 2)));
    const [alert, ...more] = await openAlerts(accountId);
    expect(more).toEqual([]);
    expect(alert).toMatchObject({
      accountId,
      keyId: 'key-leaked',
      reason: 'spend-jump',
      usualHourMicroLyd: usualMicro,
      historyHours: 28 * 24 - 1,
      thresholdMicroLyd: Math.max(SPEND_RULE.floorMicro, SPEND_RULE.multiple * usualMicro),
      closedAt: '',
    });
    expect(alert.lastHourMicroLyd).toBeGreaterThan(alert.thresholdMicroLyd);
    expect(alert.keyLastHourMicroLyd).toBeGreaterThan(alert.thresholdMicroLyd);
    expect(alert.lastHourRequests).toBeGreaterThanOrEqual(4);
    expect(await metric('billing_spend_alerts_total{reason="spend-jump"}')).toBe(raisedBefore + 1);
    expect(await metric('billing_spend_alerts_open')).toBeGreaterThanOrEqual(1);
    // Its holder event, for the holder's security mail, in the same transaction: one.
    const { rows: events } = await t.db.query<{ details: Record<string, unknown> }>(
      `SELECT details FROM billing.holder_events WHERE account_id = $1 AND kind = 'key-leak-suspected'`,
      [accountId],
    );
    expect(events).toEqual([
      {
        details: {
          keyId: 'key-leaked',
          reason: "the account's last hour spent far more than its usual busy hour",
          keyLastHourMicro: alert.keyLastHourMicroLyd,
          lastHourMicro: alert.lastHourMicroLyd,
          lastHourRequests: alert.lastHourRequests,
          usualHourMicro: usualMicro,
          thresholdMicro: alert.thresholdMicroLyd,
        },
      },
    ]);
    // The operator sees it among every account's.
    const all = (await client(1).listSpendAlerts({ accountId: '', includeClosed: false, limit: 100 })).alerts;
    expect(all.map((a) => a.alertId)).toContain(alert.alertId);

    // Dismissed by the holder: closed once, and the leak's next batches raise none within the cool-down.
    const { alerts: closed } = await client().closeSpendAlerts({
      accountId,
      alertId: alert.alertId,
      keyId: '',
      closing: 'dismissed',
      closedBy: 'holder@example.com',
    });
    // A plain-text server names no caller: 'unchecked' (over mutual TLS the console's holder is named, holder:EMAIL).
    expect(closed).toMatchObject([{ alertId: alert.alertId, closing: 'dismissed', closedBy: 'unchecked' }]);
    const again = await client().closeSpendAlerts({ accountId, alertId: alert.alertId, keyId: '', closing: 'key-revoked', closedBy: '' });
    expect(again.alerts).toMatchObject([{ closing: 'dismissed', closedAt: closed[0].closedAt }]);
    await apply([bill(accountId, 'key-leaked'), bill(accountId, 'key-leaked')], 1);
    expect(await openAlerts(accountId)).toEqual([]);
    expect((await client().listSpendAlerts({ accountId, includeClosed: true, limit: 100 })).alerts).toHaveLength(1);
    expect(await metric('billing_spend_alerts_total{reason="spend-jump"}')).toBe(raisedBefore + 1);
  });

  it('does not flag a new account under the floor; past it, it does, with no history to go by', async () => {
    const quiet = await funded();
    const underFloor = Math.floor(SPEND_RULE.floorMicro / BIG_BILL_MICRO);
    await apply(Array.from({ length: underFloor }, () => bill(quiet, 'key-new')));
    expect(await openAlerts(quiet)).toEqual([]);
    await apply([bill(quiet, 'key-new')]);
    expect(await openAlerts(quiet)).toMatchObject([{ keyId: 'key-new', reason: 'spend-jump', historyHours: 0, usualHourMicroLyd: 0 }]);
  });

  it('flags a key unbilled for weeks that spends again; revoking the key closes it, and only the account itself may close its alerts', async () => {
    const accountId = await funded();
    await apply([bill(accountId, 'key-old', { prompt: 100, completion: 100 })]);
    await t.db.query(`UPDATE billing.spend_keys SET last_billed_at = now() - make_interval(secs => $2) WHERE account_id = $1`, [
      accountId,
      SPEND_RULE.idleMs / 1000 + DAY_MS / 1000,
    ]);
    const idleBefore = await metric('billing_spend_alerts_total{reason="idle-key"}');
    // A little more than the wake floor, in one request.
    await apply([bill(accountId, 'key-old', { prompt: Math.ceil(SPEND_RULE.wakeFloorMicro / 4) + 1000, completion: 0 })]);
    const [alert] = await openAlerts(accountId);
    expect(alert).toMatchObject({ keyId: 'key-old', reason: 'idle-key' });
    expect(alert.restedSeconds).toBeGreaterThanOrEqual((20 * DAY_MS) / 1000 - 60);
    expect(await metric('billing_spend_alerts_total{reason="idle-key"}')).toBe(idleBefore + 1);

    const other = await funded();
    const close = (accountIdOf: string, how: Partial<billingV1.CloseSpendAlertsRequest>) =>
      client().closeSpendAlerts({ accountId: accountIdOf, alertId: 0, keyId: '', closing: 'key-revoked', closedBy: '', ...how });
    expect(await codeOf(close(other, { alertId: alert.alertId }))).toBe(status.NOT_FOUND);
    expect((await close(other, { keyId: 'key-old' })).alerts).toEqual([]);
    expect(await codeOf(close(accountId, { alertId: alert.alertId, keyId: 'key-old' }))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(close(accountId, { keyId: 'key-old', closing: 'ignored' }))).toBe(status.INVALID_ARGUMENT);
    const { alerts } = await close(accountId, { keyId: 'key-old' });
    expect(alerts).toMatchObject([{ alertId: alert.alertId, closing: 'key-revoked', closedBy: 'unchecked' }]);
    expect(await openAlerts(accountId)).toEqual([]);
  });

  it("applies a batch's bills when its spend watch fails, undoing the watch alone; the next batch is watched again", async () => {
    const accountId = await funded();
    const slots = async () =>
      Number((await t.db.query('SELECT count(*) AS n FROM billing.spend_slots WHERE account_id = $1', [accountId])).rows[0].n);
    const balance = async () => Number((await client().getBalance({ accountId })).balanceMicroLyd);
    // The watch's books gone: its first statement fails inside the batch's transaction.
    const unwatched = bill(accountId, 'key-a');
    await t.db.query('ALTER TABLE billing.spend_slots RENAME TO spend_slots_away');
    try {
      expect(await apply([unwatched])).toEqual([expect.objectContaining({ applied: true })]);
    } finally {
      await t.db.query('ALTER TABLE billing.spend_slots_away RENAME TO spend_slots');
    }
    expect(await balance()).toBe(1000_000_000 - BIG_BILL_MICRO);
    expect((await t.db.query('SELECT 1 FROM billing.ledger WHERE request_id = $1', [unwatched.requestId])).rows).toHaveLength(1);
    expect(await slots()).toBe(0);

    expect((await apply([bill(accountId, 'key-a')])).every((o) => o.applied)).toBe(true);
    expect(await slots()).toBe(1);
    expect(await balance()).toBe(1000_000_000 - 2 * BIG_BILL_MICRO);
  });

  it('still takes the 16 arguments of apply_bills an older replica passes, filing the bill under no key', async () => {
    const accountId = await funded();
    const b = bill(accountId, undefined);
    const { rows } = await t.db.query<{ outcome: string }>(
      `SELECT bill_outcome AS outcome FROM billing.apply_bills(ARRAY[$1], ARRAY[$2], ARRAY['vendor-v4-pro'], ARRAY[true], ARRAY[$3::bigint],
         ARRAY[$4::bigint], ARRAY[false], ARRAY[10000000::bigint], ARRAY[4000000::bigint], ARRAY[16000000::bigint], ARRAY[$5::bigint],
         ARRAY[]::text[], ARRAY[]::bigint[], ARRAY['complete'], ARRAY[now()], ARRAY[NULL]::text[])`,
      [b.requestId, accountId, b.promptTokens, b.completionTokens, b.chargeMicroLyd],
    );
    expect(rows).toEqual([{ outcome: 'written' }]);
    const ledger = await t.db.query('SELECT key_id FROM billing.ledger WHERE request_id = $1', [b.requestId]);
    expect(ledger.rows).toEqual([{ key_id: null }]);
  });
});
