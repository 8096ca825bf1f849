import { createHash, randomBytes } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, Env, openDatabase, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { BillingApp, startBillingApp } from '../src/billing-app';
import { loadConfig } from '../src/config';
import { codeOf } from './billing-test-db';

const DEADLINE_MS = 10_000;
const DAY_MS = 24 * 3600_000;

/** A UUIDv7 of the time given, as the edge makes billing ids from its own clock. */
function uuid7At(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0') + randomBytes(10).toString('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const monthName = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const monthStart = (offset: number) => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1);
};

/**
 * A bill is filed under the time quota-service admitted its request, never the edge's clock in
 * its billing id; a bill too far from billing-service's clock, of an archived month or that would
 * correct an archived estimate is set aside (answered set_aside, never repeated), listed for the
 * operator, and filed or written off once; the archive keeps the request ids it drops, so none is
 * charged twice.
 */
describe('set-aside bills over billing.v1', () => {
  let testDb: TestDatabase;
  let db: Database;
  let app: BillingApp | undefined;
  let client: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  const logs: string[] = [];

  const start = async (env: Env = {}) => {
    client?.close();
    await app?.stop();
    const config = loadConfig({
      BILLING_METRICS_PORT: '0',
      BILLING_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      DATABASE_URL: testDb.url,
      ...env,
    });
    app = await startBillingApp(
      config,
      createLogger('billing-service', 'warn', (line) => logs.push(line)),
    );
    const settings = { timeoutMs: DEADLINE_MS, chain: clientChain() };
    client = rpcClient(billingV1.BillingClient, `127.0.0.1:${app.port}`, { kind: 'insecure' }, 'billing-service', settings);
  };
  const apply = async (bills: billingV1.Bill[]) => (await client.applyBills({ bills, returns: [] })).outcomes;
  const bill = (requestId: string, accountId: string, tokens: number, overrides: Partial<billingV1.Bill> = {}): billingV1.Bill => ({
    requestId,
    accountId,
    model: 'vendor-v4-flash',
    paid: true,
    promptTokens: tokens,
    completionTokens: tokens,
    usageEstimated: false,
    heldMicroLyd: 10_000_000,
    inputMicroLydPerMillion: 1_000_000,
    outputMicroLydPerMillion: 4_000_000,
    chargeMicroLyd: 5 * tokens,
    ...overrides,
  });
  const balanceOf = async (accountId: string) => (await client.getBalance({ accountId })).balanceMicroLyd;
  const rowsOf = async (requestId: string) =>
    (
      await db.query<{ part: string; amount: string; estimated: boolean }>(
        'SELECT tableoid::regclass::text AS part, amount_micro::text AS amount, usage_estimated AS estimated FROM billing.ledger WHERE request_id = $1',
        [requestId],
      )
    ).rows;
  const listed = async () => (await client.listSetAsideBills({ after: '', limit: 1000 })).bills;
  const setAsideOutcome = { applied: false, repeated: false, setAside: true, shortfallMicroLyd: 0, errorCode: 0, errorMessage: '' };

  /** `ctl ledger archive` over billing.v1: the pages read, their digest, the drop. */
  const archive = async (before: string) => {
    let page = await client.readLedgerArchive({ before, after: '', limit: 1000 });
    const lines = [page.header, ...page.lines];
    while (page.next) {
      page = await client.readLedgerArchive({ before, after: page.next, limit: 1000 });
      lines.push(...page.lines);
    }
    const sha256 = createHash('sha256')
      .update(lines.map((l) => `${l}\n`).join(''))
      .digest('hex');
    return client.dropLedgerMonths({ before, rows: lines.length - 1, sha256 });
  };

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
    await start();
  });

  afterAll(async () => {
    client?.close();
    await app?.stop();
    await db?.close();
    await testDb?.drop();
  });

  it('files a bill under its admitted time: an edge clock 100 days slow puts nothing in an old month', async () => {
    await client.addBalance({ accountId: 'acct_slow_edge', amountMicroLyd: 10_000_000 });
    const ids = [0, 1, 2].map(() => uuid7At(Date.now() - 100 * DAY_MS));
    const admittedAtMs = Date.now();
    const outcomes = await apply(ids.map((id) => bill(id, 'acct_slow_edge', 100, { admittedAtMs })));
    expect(outcomes.map((o) => o.applied)).toEqual([true, true, true]);
    for (const id of ids)
      expect(await rowsOf(id)).toEqual([
        { part: `billing.ledger_${monthName(admittedAtMs).replace('-', '_')}`, amount: '500', estimated: false },
      ]);
    expect(await balanceOf('acct_slow_edge')).toBe(10_000_000 - 3 * 500);
  });

  it('sets aside a bill admitted too long ago or too far ahead: answered set_aside (never repeated), nothing charged, listed for the operator', async () => {
    await client.addBalance({ accountId: 'acct_far', amountMicroLyd: 10_000_000 });
    const late = bill(uuid7At(Date.now()), 'acct_far', 100, { admittedAtMs: Date.now() - 100 * DAY_MS });
    const ahead = bill(uuid7At(Date.now()), 'acct_far', 200, { admittedAtMs: Date.now() + DAY_MS });
    // From an older quota-service, no admitted time: the edge's clock in the id, 100 days slow.
    const older = bill(uuid7At(Date.now() - 100 * DAY_MS), 'acct_far', 300);
    expect(await apply([late, ahead, older])).toEqual([setAsideOutcome, setAsideOutcome, setAsideOutcome]);
    // Delivered again (a lost answer): set aside still, counted, not charged, not "repeated".
    expect(await apply([late])).toEqual([setAsideOutcome]);
    expect(await balanceOf('acct_far')).toBe(10_000_000);
    for (const b of [late, ahead, older]) expect(await rowsOf(b.requestId)).toEqual([]);
    const warned = logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((e) => e.accountId === 'acct_far');
    expect(warned.map((e) => [e.level, e.msg, e.billingId, e.reason])).toEqual(
      [late, ahead, older, late].map((b, k) => [
        'warn',
        'bill set aside, not filed: waits for ctl bills file or write-off',
        b.requestId,
        ['too-late', 'ahead', 'too-late', 'too-late'][k],
      ]),
    );

    const mine = (await listed()).filter((s) => s.bill?.accountId === 'acct_far');
    expect(mine.map((s) => [s.bill?.requestId, s.reason, s.deliveries])).toEqual(
      [
        [late.requestId, 'too-late', 2],
        [ahead.requestId, 'ahead', 1],
        [older.requestId, 'too-late', 1],
        // Set aside in one transaction: oldest first, then by request id.
      ].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
    );
    expect(mine.find((s) => s.bill?.requestId === late.requestId)?.bill).toMatchObject({
      chargeMicroLyd: 500,
      admittedAtMs: late.admittedAtMs,
    });
  });

  it('files a set-aside bill under the month running now, once; a later delivery of it is then repeated', async () => {
    await client.addBalance({ accountId: 'acct_file', amountMicroLyd: 10_000_000 });
    const late = bill(uuid7At(Date.now()), 'acct_file', 1000, { admittedAtMs: Date.now() - 40 * DAY_MS });
    expect(await apply([late])).toEqual([setAsideOutcome]);
    const filed = await client.fileSetAsideBill({ requestId: late.requestId, reason: 'billing-service was down for weeks' });
    expect(filed).toEqual({ month: monthName(Date.now()), chargedMicroLyd: 5000, shortfallMicroLyd: 0, corrected: false });
    expect(await rowsOf(late.requestId)).toEqual([
      { part: `billing.ledger_${monthName(Date.now()).replace('-', '_')}`, amount: '5000', estimated: false },
    ]);
    expect(await balanceOf('acct_file')).toBe(10_000_000 - 5000);
    expect((await listed()).some((s) => s.bill?.requestId === late.requestId)).toBe(false);
    expect(await codeOf(client.fileSetAsideBill({ requestId: late.requestId, reason: '' }))).toBe(status.FAILED_PRECONDITION);
    expect(await codeOf(client.writeOffSetAsideBill({ requestId: late.requestId, reason: 'x' }))).toBe(status.FAILED_PRECONDITION);
    expect(await codeOf(client.fileSetAsideBill({ requestId: 'no-such-request', reason: '' }))).toBe(status.NOT_FOUND);
    // The same bill again, and its estimate: in the ledger now, so repeated, charged once.
    expect((await apply([late, { ...late, usageEstimated: true, chargeMicroLyd: 5000 }])).map((o) => o.repeated)).toEqual([true, true]);
    expect(await balanceOf('acct_file')).toBe(10_000_000 - 5000);
  });

  it('writes a set-aside bill off with a reason: never charged, off the list, a later delivery not charged either', async () => {
    await client.addBalance({ accountId: 'acct_off', amountMicroLyd: 10_000_000 });
    const late = bill(uuid7At(Date.now()), 'acct_off', 100, { admittedAtMs: Date.now() - 40 * DAY_MS });
    expect(await apply([late])).toEqual([setAsideOutcome]);
    expect(await codeOf(client.writeOffSetAsideBill({ requestId: late.requestId, reason: '' }))).toBe(status.INVALID_ARGUMENT);
    expect(await client.writeOffSetAsideBill({ requestId: late.requestId, reason: 'the holder was refunded by hand' })).toEqual({
      chargeMicroLyd: 500,
    });
    expect((await listed()).some((s) => s.bill?.requestId === late.requestId)).toBe(false);
    expect(await apply([late])).toEqual([setAsideOutcome]);
    expect(await codeOf(client.fileSetAsideBill({ requestId: late.requestId, reason: '' }))).toBe(status.FAILED_PRECONDITION);
    expect(await balanceOf('acct_off')).toBe(10_000_000);
    expect(
      (await db.query('SELECT decision, decided_reason, deliveries FROM billing.set_aside_bills WHERE request_id = $1', [late.requestId]))
        .rows,
    ).toEqual([{ decision: 'written-off', decided_reason: 'the holder was refunded by hand', deliveries: 2 }]);
  });

  it('archives a month whose rows lived in ledger_other with the month recorded, and charges none of its requests again', async () => {
    // Before: an edge 100 days slow, an older quota-service (no admitted time), and a late-bill
    // window that still took its bills: the estimate of a lapsed request went to ledger_other.
    await start({ BILL_LATE_WINDOW_MS: String(400 * DAY_MS) });
    await client.addBalance({ accountId: 'acct_lapse', amountMicroLyd: 10_000_000 });
    const at = Date.now() - 100 * DAY_MS;
    const id = uuid7At(at);
    const estimate = bill(id, 'acct_lapse', 10, { usageEstimated: true, chargeMicroLyd: 50 });
    expect((await apply([estimate]))[0].applied).toBe(true);
    expect((await rowsOf(id)).map((r) => r.part)).toEqual(['billing.ledger_other']);
    await start();

    const dropped = await archive(monthName(monthStart(-1)));
    expect(dropped.months).toContain(monthName(at));
    expect(
      (
        await db.query(
          "SELECT 1 FROM billing.ledger_archives WHERE month = date_trunc('month', $1::timestamptz AT TIME ZONE 'UTC')::date",
          [new Date(at)],
        )
      ).rows,
    ).toHaveLength(1);
    expect(await rowsOf(id)).toEqual([]);
    const afterArchive = await balanceOf('acct_lapse');
    expect(afterArchive).toBe(10_000_000 - 50);

    // The real bill of the archived estimate: not charged again, set aside for the operator to see.
    const real = bill(id, 'acct_lapse', 1000);
    expect(await apply([real])).toEqual([setAsideOutcome]);
    // The estimate again: it was applied (archived), so repeated.
    expect((await apply([estimate]))[0]).toMatchObject({ applied: false, repeated: true, setAside: false });
    expect(await balanceOf('acct_lapse')).toBe(afterArchive);
    expect((await listed()).find((s) => s.bill?.requestId === id)).toMatchObject({
      reason: 'archived-estimate',
      bill: { chargeMicroLyd: 5000 },
    });
    // Filing it would charge the request twice: refused; written off, it leaves the list.
    expect(await codeOf(client.fileSetAsideBill({ requestId: id, reason: '' }))).toBe(status.FAILED_PRECONDITION);
    expect(await balanceOf('acct_lapse')).toBe(afterArchive);
    await client.writeOffSetAsideBill({ requestId: id, reason: 'estimate kept' });
    expect((await listed()).some((s) => s.bill?.requestId === id)).toBe(false);

    // A new request admitted in the archived month (quota-service's clock): set aside, not dropped.
    const inArchived = bill(uuid7At(Date.now()), 'acct_lapse', 10, { admittedAtMs: at });
    expect(await apply([inArchived])).toEqual([setAsideOutcome]);
    expect((await listed()).some((s) => s.bill?.requestId === inArchived.requestId)).toBe(true);
    expect(await balanceOf('acct_lapse')).toBe(afterArchive);

    // Whatever window the clock allows, a bill of a month archived is not filed, and not "repeated": set aside.
    await start({ BILL_LATE_WINDOW_MS: String(400 * DAY_MS) });
    const stillLate = bill(uuid7At(at), 'acct_lapse', 10);
    expect(await apply([stillLate])).toEqual([setAsideOutcome]);
    expect((await listed()).find((s) => s.bill?.requestId === stillLate.requestId)).toMatchObject({ reason: 'month-archived' });
    expect(await balanceOf('acct_lapse')).toBe(afterArchive);
    expect((await db.query('SELECT * FROM billing.balance_mismatches()')).rows).toEqual([]);
    await start();
  });

  it('answers no bill sent while an archive runs "repeated" unless it was applied: each is charged once or set aside', async () => {
    const accountId = 'acct_race';
    await client.addBalance({ accountId, amountMicroLyd: 10_000_000 });
    // billing-service replicas whose clocks still take bills of the month being archived (an
    // edge 100 days slow, an older quota-service): the archive's own replica refuses nothing.
    const lenient = await startBillingApp(
      loadConfig({
        BILLING_METRICS_PORT: '0',
        BILLING_PORT: '0',
        BIND_HOST: '127.0.0.1',
        GRPC_INSECURE: 'true',
        DATABASE_URL: testDb.url,
        BILL_LATE_WINDOW_MS: String(400 * DAY_MS),
      }),
      createLogger('billing-service', 'error', () => undefined),
    );
    const late = rpcClient(billingV1.BillingClient, `127.0.0.1:${lenient.port}`, { kind: 'insecure' }, 'billing-service', {
      timeoutMs: DEADLINE_MS,
      chain: clientChain(),
    });
    try {
      // Two months back: never the month the test before archived (100 days back, three or four months).
      const at = monthStart(-2) + 3 * DAY_MS;
      const early = [0, 1, 2].map((k) => bill(uuid7At(at + k), accountId, 10 + k));
      expect((await late.applyBills({ bills: early, returns: [] })).outcomes.every((o) => o.applied)).toBe(true);
      // Each bill is sent until it is answered (quota-service retries a call that failed).
      const deliver = async (b: billingV1.Bill): Promise<billingV1.BillOutcome> => {
        for (let tries = 1; ; tries++) {
          try {
            return (await late.applyBills({ bills: [b], returns: [] })).outcomes[0];
          } catch (err) {
            // Tried again, as the outbox would.
            if (tries === 20) throw err;
          }
        }
      };
      const archiving = (async () => {
        for (let tries = 1; ; tries++) {
          try {
            return await archive(monthName(monthStart(-1)));
          } catch (err) {
            // A bill that landed between the read and the drop: the file no longer matches; archived again.
            if ((err as { code?: number }).code !== status.FAILED_PRECONDITION || tries === 20) throw err;
          }
        }
      })();
      // Bills of the month come while the archive reads and drops it (each one landing between its read and its drop has it
      // read again), and after it.
      let archived = false;
      const racing: billingV1.Bill[] = [];
      const outcomes: billingV1.BillOutcome[] = [];
      const sendOne = async () => {
        const b = bill(uuid7At(at + 100 + racing.length), accountId, 20 + racing.length);
        racing.push(b);
        outcomes.push(await deliver(b));
      };
      const sending = (async () => {
        while (!archived && racing.length < 6) await sendOne();
        while (!archived) await archiving.catch(() => undefined);
        for (let k = 0; k < 2; k++) await sendOne();
      })();
      await archiving.finally(() => (archived = true));
      await sending;
      expect(outcomes.filter((o) => o.setAside).length).toBeGreaterThanOrEqual(2);
      const known = async (requestId: string) =>
        (
          await db.query(
            'SELECT 1 FROM billing.ledger WHERE request_id = $1 UNION ALL SELECT 1 FROM billing.archived_requests WHERE request_id = $1',
            [requestId],
          )
        ).rows.length;
      let charged = 0;
      for (const [k, outcome] of outcomes.entries()) {
        expect({ k, repeated: outcome.repeated, decided: outcome.applied !== outcome.setAside }).toEqual({
          k,
          repeated: false,
          decided: true,
        });
        expect({ k, known: await known(racing[k].requestId) }).toEqual({ k, known: outcome.applied ? 1 : 0 });
        if (outcome.applied) charged += racing[k].chargeMicroLyd;
      }
      const open = (await listed()).filter((s) => s.bill?.accountId === accountId).length;
      expect(open).toBe(outcomes.filter((o) => o.setAside).length);
      expect(await balanceOf(accountId)).toBe(10_000_000 - early.reduce((sum, b) => sum + b.chargeMicroLyd, 0) - charged);
      expect((await db.query('SELECT * FROM billing.balance_mismatches()')).rows).toEqual([]);
    } finally {
      late.close();
      await lenient.stop();
    }
  });
});
