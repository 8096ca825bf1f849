import { status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { Database } from '@gw/service-kit';
import { BillingTestApps, BillingTestClient, codeOf, heldApart as runHeldApart, startBillingTestApps } from './billing-test-db';

const DEADLINE_MS = 5000;

/** An account's money as Postgres keeps it. */
interface Money {
  balance: number;
  held: number;
  line: number;
  granted: number;
  charged: number;
  returned: number;
}

/**
 * billing.v1 ExtendCreditLine and ApplyBills over gRPC, on Postgres: the credit line lent to
 * quota-service, bills applied once per request id, estimates corrected, charges beyond the line
 * clamped, and held + line <= balance whatever happens.
 */
describe('billing.v1 credit lines and bills over gRPC', () => {
  let t: BillingTestApps;
  let db: Database;
  let client: BillingTestClient;
  let seq = 0;

  const call = {
    extend: (accountId: string, returnedTotalMicroLyd = 0, needMicroLyd = 0) =>
      client.extendCreditLine({ accountId, returnedTotalMicroLyd, needMicroLyd }),
    apply: (bills: billingV1.Bill[], returns: billingV1.LineReturn[] = []) => client.applyBills({ bills, returns }),
    addBalance: (accountId: string, amountMicroLyd: number) => client.addBalance({ accountId, amountMicroLyd }),
  };
  const funded = async (micro: number) => {
    const accountId = `acct_line_${++seq}`;
    await call.addBalance(accountId, micro);
    return accountId;
  };
  /** A paid bill at vendor-v4-flash's prices (1 and 4 micro-LYD a token) charging what they come to, at most the hold. */
  const bill = (
    accountId: string,
    promptTokens: number,
    completionTokens: number,
    overrides: Partial<billingV1.Bill> = {},
  ): billingV1.Bill => {
    const heldMicroLyd = overrides.heldMicroLyd ?? 1_000_000;
    return {
      requestId: `req_line_${++seq}`,
      accountId,
      model: 'vendor-v4-flash',
      paid: true,
      promptTokens,
      completionTokens,
      usageEstimated: false,
      heldMicroLyd,
      inputMicroLydPerMillion: 1_000_000,
      outputMicroLydPerMillion: 4_000_000,
      chargeMicroLyd: Math.min(promptTokens + 4 * completionTokens, heldMicroLyd),
      ...overrides,
    };
  };
  const money = async (accountId: string): Promise<Money | undefined> => {
    const { rows } = await db.query<Record<string, string>>(
      `SELECT balance_micro AS balance, held_micro AS held, line_micro AS line, line_granted_total AS granted,
         line_charged_total AS charged, line_returned_total AS returned FROM billing.balances WHERE account_id = $1`,
      [accountId],
    );
    return rows[0] && (Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)])) as unknown as Money);
  };
  /** The ledger rows of these request ids, in their order (those that have one). */
  const ledger = async (requestIds: string[]) => {
    const { rows } = await db.query<{
      request_id: string;
      amount_micro: string;
      shortfall_micro: string;
      usage_estimated: boolean;
      completion_tokens: string;
    }>(
      'SELECT request_id, amount_micro, shortfall_micro, usage_estimated, completion_tokens FROM billing.ledger WHERE request_id = ANY($1)',
      [requestIds],
    );
    const byId = new Map(rows.map((r) => [r.request_id, r]));
    return requestIds.flatMap((id) => {
      const r = byId.get(id);
      return r
        ? [
            {
              ...r,
              amount_micro: Number(r.amount_micro),
              shortfall_micro: Number(r.shortfall_micro),
              completion_tokens: Number(r.completion_tokens),
            },
          ]
        : [];
    });
  };
  /** held + line <= balance, balance >= 0, and the line is what its totals say. */
  const expectSound = (m: Money | undefined) => {
    expect(m).toBeDefined();
    const { balance, held, line, granted, charged, returned } = m as Money;
    expect(balance).toBeGreaterThanOrEqual(0);
    expect(line).toBeGreaterThanOrEqual(0);
    expect(held + line).toBeLessThanOrEqual(balance);
    expect(line).toBe(granted - charged - returned);
  };
  const heldApart = <T>(lockSql: string, params: unknown[], work: () => Promise<T>): Promise<T> => runHeldApart(t, lockSql, params, work);
  const applied = { applied: true, repeated: false, setAside: false, shortfallMicroLyd: 0, errorCode: 0, errorMessage: '' };
  const repeated = { applied: false, repeated: true, setAside: false, shortfallMicroLyd: 0, errorCode: 0, errorMessage: '' };

  beforeAll(async () => {
    t = await startBillingTestApps(1, {}, DEADLINE_MS);
    [client] = t.clients;
    db = t.db;
  });
  afterAll(() => t?.close());

  it('ExtendCreditLine lends the unheld rest of the balance, or the need; an account without money gets zeros and no row', async () => {
    const accountId = await funded(100_000);
    const totals = { balanceMicroLyd: 100_000, chargedTotalMicroLyd: 0, returnedTotalMicroLyd: 0, heldMicroLyd: 0 };
    expect(await call.extend(accountId, 0, 20_000)).toEqual({ ...totals, grantedTotalMicroLyd: 20_000 });
    expect(await call.extend(accountId)).toEqual({ ...totals, grantedTotalMicroLyd: 100_000 });
    expect(await call.extend(accountId)).toEqual({ ...totals, grantedTotalMicroLyd: 100_000 });
    expect(await money(accountId)).toEqual({ balance: 100_000, held: 0, line: 100_000, granted: 100_000, charged: 0, returned: 0 });

    const zeros = { grantedTotalMicroLyd: 0, balanceMicroLyd: 0, chargedTotalMicroLyd: 0, returnedTotalMicroLyd: 0, heldMicroLyd: 0 };
    expect(await call.extend('acct_line_nobody', 700, 0)).toEqual(zeros);
    expect(await money('acct_line_nobody')).toBeUndefined();

    for (const [returned, need] of [
      [-1, 0],
      [0, -1],
      [2 ** 53, 0],
    ])
      expect(await codeOf(call.extend(accountId, returned, need))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(call.extend(''))).toBe(status.INVALID_ARGUMENT);
  });

  it('applies a returned total once, by ApplyBills or ExtendCreditLine, whichever brings it first', async () => {
    const accountId = await funded(100_000);
    await call.extend(accountId);
    await call.apply([], [{ accountId, returnedTotalMicroLyd: 30_000 }]);
    expect(await money(accountId)).toEqual({ balance: 100_000, held: 0, line: 70_000, granted: 100_000, charged: 0, returned: 30_000 });
    await call.apply(
      [],
      [
        { accountId, returnedTotalMicroLyd: 30_000 },
        { accountId, returnedTotalMicroLyd: 10_000 },
      ],
    );
    expect(await money(accountId)).toMatchObject({ line: 70_000, returned: 30_000 });

    expect(await call.extend(accountId, 30_000, 5000)).toMatchObject({ grantedTotalMicroLyd: 105_000, returnedTotalMicroLyd: 30_000 });
    expect(await money(accountId)).toMatchObject({ line: 75_000 });
    // 20,000 more returned, then all the balance lent again.
    expect(await call.extend(accountId, 50_000, 0)).toMatchObject({ grantedTotalMicroLyd: 150_000, returnedTotalMicroLyd: 50_000 });
    await call.apply([], [{ accountId, returnedTotalMicroLyd: 40_000 }]);
    const after = await money(accountId);
    expect(after).toEqual({ balance: 100_000, held: 0, line: 100_000, granted: 150_000, charged: 0, returned: 50_000 });
    expectSound(after);
  });

  it('keeps held + line <= balance, never below zero, under 20 concurrent ExtendCreditLine and AddBalance calls', async () => {
    const accountId = await funded(1_000_000);
    const amounts = Array.from({ length: 10 }, (_, i) => (i % 3 === 0 ? 50_000 : -150_000));
    const answers = await Promise.allSettled([
      ...amounts.map((amount) => call.addBalance(accountId, amount)),
      ...Array.from({ length: 10 }, (_, i) => call.extend(accountId, 0, i % 2 ? 0 : 100_000)),
    ]);
    // Every refusal is the service's own answer, not a constraint failing under it (INTERNAL).
    const refusals = answers
      .filter((a): a is PromiseRejectedResult => a.status === 'rejected')
      .map((a) => (a.reason as { code: number }).code);
    expect(refusals.every((code) => code === status.FAILED_PRECONDITION)).toBe(true);
    const takenAmounts = amounts.filter((_, i) => answers[i].status === 'fulfilled');
    const after = await money(accountId);
    expect(after?.balance).toBe(1_000_000 + takenAmounts.reduce((a, b) => a + b, 0));
    expectSound(after);
    // The last word of Postgres: no statement can lend or take what is not there.
    await expect(
      db.query(
        'UPDATE billing.balances SET line_micro = balance_micro + 1, line_granted_total = balance_micro + 1 + line_charged_total + line_returned_total WHERE account_id = $1',
        [accountId],
      ),
    ).rejects.toMatchObject({ code: '23514' });
    await expect(
      db.query('UPDATE billing.balances SET balance_micro = held_micro + line_micro - 1 WHERE account_id = $1', [accountId]),
    ).rejects.toMatchObject({ code: '23514' });
  });

  it('refuses a negative AddBalance while the line holds the money, saying to return it first, and takes it once returned', async () => {
    const accountId = await funded(10_000);
    await call.extend(accountId);
    await expect(call.addBalance(accountId, -4000)).rejects.toMatchObject({
      code: status.FAILED_PRECONDITION,
      details: expect.stringMatching(/credit line.*returned first/),
    });
    expect(await money(accountId)).toMatchObject({ balance: 10_000, line: 10_000 });
    await call.apply([], [{ accountId, returnedTotalMicroLyd: 10_000 }]);
    expect(await call.addBalance(accountId, -4000)).toEqual({ balanceMicroLyd: 6000 });
    await expect(call.addBalance(accountId, -6001)).rejects.toMatchObject({
      code: status.FAILED_PRECONDITION,
      details: expect.not.stringMatching(/credit line/),
    });
  });

  it('charges each request id once: the same batch twice, a repeat inside a batch, and two calls at once with overlapping ids', async () => {
    const accountId = await funded(1_000_000);
    await call.extend(accountId);
    const batch = [bill(accountId, 100, 10), bill(accountId, 200, 20), { ...bill(accountId, 300, 30), paid: false, chargeMicroLyd: 0 }];
    expect((await call.apply([...batch, batch[0]])).outcomes).toEqual([applied, applied, applied, repeated]);
    const once = await money(accountId);
    expect(once).toMatchObject({ balance: 1_000_000 - 140 - 280, line: 1_000_000 - 420, charged: 420 });
    expect((await call.apply(batch)).outcomes).toEqual([repeated, repeated, repeated]);
    expect(await money(accountId)).toEqual(once);

    const bills = Array.from({ length: 30 }, (_, i) => bill(accountId, 1000 + i, 10));
    const [first, second] = await Promise.all([call.apply(bills.slice(0, 20)), call.apply(bills.slice(10, 30))]);
    const overlap = [...first.outcomes.slice(10, 20), ...second.outcomes.slice(0, 10)];
    expect(overlap.filter((o) => o.applied)).toHaveLength(10);
    expect(overlap.filter((o) => o.repeated)).toHaveLength(10);
    expect(await ledger(bills.map((b) => b.requestId))).toHaveLength(30);
    const charged = bills.reduce((sum, b) => sum + b.chargeMicroLyd, 0);
    const after = await money(accountId);
    expect(after).toMatchObject({ balance: (once?.balance ?? 0) - charged, charged: 420 + charged });
    expectSound(after);

    // Free bills of an account that never had money: no balance row to queue on, the ledger's key alone. Held
    // apart by an uncommitted row of one of their ids, until both have begun: neither sees the other's rows.
    const free = Array.from({ length: 200 }, () => ({ ...bill('acct_line_free_only', 10, 1), paid: false, chargeMicroLyd: 0 }));
    const calls = await heldApart(
      "INSERT INTO billing.ledger (request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million, output_micro_per_million, amount_micro, usage_estimated, request_at) VALUES ($1, 'x', 'x', 0, 0, 0, 0, 0, false, billing.ledger_time($1))",
      [free[120].requestId],
      () => Promise.all([call.apply(free.slice(0, 150)), call.apply(free.slice(50))]),
    );
    const both = [...calls[0].outcomes.slice(50), ...calls[1].outcomes.slice(0, 100)];
    expect([both.filter((o) => o.applied).length, both.filter((o) => o.repeated).length]).toEqual([100, 100]);
    expect(await ledger(free.map((b) => b.requestId))).toHaveLength(200);
  });

  it('records why each request ended, shows it with the charge, and keeps every correction of an estimate with what it moved', async () => {
    const accountId = await funded(100_000);
    await call.extend(accountId);
    const { COMPLETE, CALLER_LEFT, PROVIDER_BROKE_OFF, RECOVERED } = {
      COMPLETE: billingV1.EndReason.END_REASON_COMPLETE,
      CALLER_LEFT: billingV1.EndReason.END_REASON_CALLER_LEFT,
      PROVIDER_BROKE_OFF: billingV1.EndReason.END_REASON_PROVIDER_BROKE_OFF,
      RECOVERED: billingV1.EndReason.END_REASON_RECOVERED,
    };
    const ended = [
      bill(accountId, 10, 1, { endReason: COMPLETE }),
      bill(accountId, 10, 2, { endReason: CALLER_LEFT }),
      bill(accountId, 10, 3, { endReason: PROVIDER_BROKE_OFF, usageEstimated: true }),
      bill(accountId, 10, 4),
    ];
    const lapsed = bill(accountId, 1000, 1000, { endReason: RECOVERED, usageEstimated: true });
    await call.apply([...ended, lapsed]);
    const reasons = async (ids: string[]) =>
      (
        await db.query<{ request_id: string; end_reason: string }>(
          'SELECT request_id, end_reason FROM billing.ledger WHERE request_id = ANY($1)',
          [ids],
        )
      ).rows;
    expect(await reasons([...ended, lapsed].map((b) => b.requestId))).toEqual(
      expect.arrayContaining([
        { request_id: ended[0].requestId, end_reason: 'complete' },
        { request_id: ended[1].requestId, end_reason: 'caller-left' },
        { request_id: ended[2].requestId, end_reason: 'provider-broke-off' },
        { request_id: ended[3].requestId, end_reason: '' },
        { request_id: lapsed.requestId, end_reason: 'recovered' },
      ]),
    );

    // The stalled edge's real bill replaces the estimate: the row is the real charge and why the
    // request really ended; the correction is on record with what the estimate had taken.
    const before = await money(accountId);
    expect((await call.apply([bill(accountId, 1000, 100, { requestId: lapsed.requestId, endReason: COMPLETE })])).outcomes).toEqual([
      applied,
    ]);
    expect(await reasons([lapsed.requestId])).toEqual([{ request_id: lapsed.requestId, end_reason: 'complete' }]);
    const { rows: corrections } = await db.query<Record<string, string>>(
      `SELECT account_id, prompt_before, completion_before, amount_before, shortfall_before, prompt_after, completion_after, amount_after, shortfall_after
       FROM billing.charge_corrections WHERE request_id = $1`,
      [lapsed.requestId],
    );
    expect(corrections).toEqual([
      {
        account_id: accountId,
        prompt_before: '1000',
        completion_before: '1000',
        amount_before: '5000',
        shortfall_before: '0',
        prompt_after: '1000',
        completion_after: '100',
        amount_after: '1400',
        shortfall_after: '0',
      },
    ]);
    expect((await money(accountId))?.balance).toBe((before?.balance ?? 0) + 5000 - 1400);

    const listed = await client.listCharges({ accountId, limit: 10, before: '' });
    expect(listed.charges.map((c) => c.endReason).sort()).toEqual(
      [COMPLETE, COMPLETE, CALLER_LEFT, PROVIDER_BROKE_OFF, billingV1.EndReason.END_REASON_UNSPECIFIED].sort(),
    );
    expect(listed.charges.filter((c) => c.corrected)).toEqual([
      expect.objectContaining({ completionTokens: 100, amountMicroLyd: 1400, usageEstimated: false }),
    ]);
  });

  it('replaces an estimated bill with the real one: one row, corrected, the balance and line moved by the difference', async () => {
    const accountId = await funded(100_000);
    await call.extend(accountId);
    const estimate = bill(accountId, 1000, 100, { usageEstimated: true });
    await call.apply([estimate]);
    expect(await money(accountId)).toMatchObject({ balance: 100_000 - 1400, line: 100_000 - 1400 });
    const real = bill(accountId, 1000, 300, { requestId: estimate.requestId });
    expect((await call.apply([real])).outcomes).toEqual([applied]);
    expect(await ledger([real.requestId])).toEqual([
      expect.objectContaining({ amount_micro: 2200, usage_estimated: false, completion_tokens: 300 }),
    ]);
    expect(await money(accountId)).toMatchObject({ balance: 100_000 - 2200, line: 100_000 - 2200, charged: 2200 });
    expect((await call.apply([real, estimate])).outcomes).toEqual([repeated, repeated]);

    // Corrected down: the difference goes back to the balance, free to be lent again.
    const high = bill(accountId, 1000, 1000, { usageEstimated: true });
    await call.apply([high]);
    expect((await call.apply([bill(accountId, 1000, 100, { requestId: high.requestId })])).outcomes).toEqual([applied]);
    expect(await ledger([high.requestId])).toEqual([expect.objectContaining({ amount_micro: 1400, usage_estimated: false })]);
    const after = await money(accountId);
    expect(after).toMatchObject({ balance: 100_000 - 2200 - 1400, line: 100_000 - 2200 - 5000, charged: 2200 + 5000 });
    expectSound(after);

    // The estimate and the real bill in one batch: the real one is written.
    const pair = bill(accountId, 10, 1, { usageEstimated: true });
    expect((await call.apply([pair, { ...pair, completionTokens: 2, chargeMicroLyd: 18, usageEstimated: false }])).outcomes).toEqual([
      repeated,
      applied,
    ]);
    expect(await ledger([pair.requestId])).toEqual([expect.objectContaining({ amount_micro: 18, usage_estimated: false })]);
  });

  it('clamps charges the line and balance cannot carry: the rest is a shortfall in the ledger, the balance untouched below zero', async () => {
    const accountId = await funded(5000);
    await call.extend(accountId);
    // As after quota-service's store lost writes: 7,500 billed against a line of 5,000.
    const bills = [bill(accountId, 3000, 0), bill(accountId, 0, 1000), bill(accountId, 500, 0)];
    expect((await call.apply(bills)).outcomes).toEqual([
      applied,
      { ...applied, shortfallMicroLyd: 2000 },
      { ...applied, shortfallMicroLyd: 500 },
    ]);
    expect((await ledger(bills.map((b) => b.requestId))).map((r) => [r.amount_micro, r.shortfall_micro])).toEqual([
      [3000, 0],
      [2000, 2000],
      [0, 500],
    ]);
    const after = await money(accountId);
    expect(after).toEqual({ balance: 0, held: 0, line: 0, granted: 7500, charged: 7500, returned: 0 });
    expectSound(after);

    // Two calls at once, each more than half the line: the later one is clamped by what the earlier took.
    const shared = await funded(1000);
    await call.extend(shared);
    const pair = await heldApart('SELECT FROM billing.balances WHERE account_id = $1 FOR UPDATE', [shared], () =>
      Promise.all([call.apply([bill(shared, 600, 0)]), call.apply([bill(shared, 600, 0)])]),
    );
    expect(pair.map((r) => r.outcomes[0].shortfallMicroLyd).sort()).toEqual([0, 200]);
    expect(await money(shared)).toEqual({ balance: 0, held: 0, line: 0, granted: 1200, charged: 1200, returned: 0 });

    // No balance row at all: nothing to take, the whole charge a shortfall, no row made.
    const nobody = bill('acct_line_no_money', 100, 0);
    expect((await call.apply([nobody])).outcomes).toEqual([{ ...applied, shortfallMicroLyd: 100 }]);
    expect(await money('acct_line_no_money')).toBeUndefined();
  });

  it('refuses a bill whose charge does not follow from its tokens, prices and hold, and applies the rest of the batch', async () => {
    const accountId = await funded(100_000);
    await call.extend(accountId);
    const good = [bill(accountId, 100, 10), bill(accountId, 5000, 1000, { heldMicroLyd: 6000 }), bill(accountId, 7, 0)];
    const bad = [
      bill(accountId, 100, 10, { chargeMicroLyd: 141 }),
      bill(accountId, 100, 10, { heldMicroLyd: 100, chargeMicroLyd: 140 }),
      { ...bill(accountId, 100, 10), paid: false, chargeMicroLyd: 5 },
      bill(accountId, -1, 10),
      bill(accountId, 100, 10, { requestId: '' }),
    ];
    const { outcomes } = await call.apply([good[0], ...bad.slice(0, 3), good[1], ...bad.slice(3), good[2]]);
    expect(outcomes.map((o) => o.errorCode)).toEqual([
      0,
      ...bad.slice(0, 3).map(() => status.INVALID_ARGUMENT),
      0,
      ...bad.slice(3).map(() => status.INVALID_ARGUMENT),
      0,
    ]);
    expect(outcomes[1].errorMessage).toMatch(/charge 141/);
    expect(outcomes.filter((o) => o.applied)).toHaveLength(3);
    expect((await ledger([...good, ...bad].map((b) => b.requestId))).map((r) => r.request_id)).toEqual(good.map((b) => b.requestId));
    expect(await money(accountId)).toMatchObject({ balance: 100_000 - 140 - 6000 - 7, charged: 140 + 6000 + 7 });
    expect(await codeOf(call.apply(Array.from({ length: 257 }, () => good[0])))).toBe(status.INVALID_ARGUMENT);
  });

  it('records a free bill as RecordFree does (amount 0, prices 0, not paid) and leaves the money alone', async () => {
    const accountId = await funded(1000);
    await call.extend(accountId);
    const free = { ...bill(accountId, 50, 5), paid: false, chargeMicroLyd: 0 };
    expect((await call.apply([free])).outcomes).toEqual([applied]);
    const { rows } = await db.query(
      'SELECT paid, amount_micro::int, input_micro_per_million::int, held_micro::int FROM billing.ledger WHERE request_id = $1',
      [free.requestId],
    );
    expect(rows).toEqual([{ paid: false, amount_micro: 0, input_micro_per_million: 0, held_micro: 0 }]);
    expect(await money(accountId)).toMatchObject({ balance: 1000, line: 1000, charged: 0 });
  });
});
