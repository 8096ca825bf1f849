import { status } from '@grpc/grpc-js';
import { MAX_ID_LENGTH } from '@gw/bounds';
import { billingV1 } from '@gw/contracts';
import { Database } from '@gw/service-kit';
import { BillingTestApps, BillingTestClient, codeOf, heldApart, startBillingTestApps } from './billing-test-db';

const DEADLINE_MS = 10_000;

/** An account's money as Postgres keeps it. */
interface Money {
  balance: number;
  held: number;
  line: number;
  granted: number;
}

/**
 * billing.v1 ExtendCreditLines over gRPC, on Postgres: the line extensions quota-service asked for
 * while its previous call was on the wire, in one call and one transaction, each served as
 * ExtendCreditLine serves it, in order; a line past its bounds refused alone; calls at once over
 * the same accounts queue on the rows and never deadlock, and held + line <= balance throughout.
 */
describe('billing.v1 ExtendCreditLines', () => {
  let t: BillingTestApps;
  let db: Database;
  let client: BillingTestClient;
  let seq = 0;

  const extendMany = (lines: billingV1.ExtendCreditLineRequest[]) => client.extendCreditLines({ lines });
  const extendOne = (line: billingV1.ExtendCreditLineRequest) => client.extendCreditLine(line);
  const ask = (accountId: string, needMicroLyd = 0, returnedTotalMicroLyd = 0): billingV1.ExtendCreditLineRequest => ({
    accountId,
    returnedTotalMicroLyd,
    needMicroLyd,
  });
  const addBalance = (accountId: string, amountMicroLyd: number) => client.addBalance({ accountId, amountMicroLyd });
  /** `count` accounts whose ids sort in the order made, each with `micro`. */
  const funded = async (count: number, micro: (i: number) => number) => {
    const prefix = `acct_lines_${++seq}_`;
    const ids = Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);
    for (let i = 0; i < count; i += 50) await Promise.all(ids.slice(i, i + 50).map((id, k) => addBalance(id, micro(i + k))));
    return ids;
  };
  const money = async (ids: string[]): Promise<Money[]> => {
    const { rows } = await db.query<{ account_id: string; balance: string; held: string; line: string; granted: string }>(
      `SELECT account_id, balance_micro AS balance, held_micro AS held, line_micro AS line, line_granted_total AS granted
         FROM billing.balances WHERE account_id = ANY($1)`,
      [ids],
    );
    const byId = new Map(
      rows.map((r) => [
        r.account_id,
        { balance: Number(r.balance), held: Number(r.held), line: Number(r.line), granted: Number(r.granted) },
      ]),
    );
    return ids.map((id) => byId.get(id) as Money);
  };
  const expectSound = (all: Money[]) => {
    for (const m of all) {
      expect(m.line).toBeGreaterThanOrEqual(0);
      expect(m.held + m.line).toBeLessThanOrEqual(m.balance);
    }
  };
  const served = (line: Partial<billingV1.ExtendCreditLineResponse>) => ({
    line: expect.objectContaining(line),
    errorCode: 0,
    errorMessage: '',
  });

  beforeAll(async () => {
    t = await startBillingTestApps(1, {}, DEADLINE_MS);
    [client] = t.clients;
    db = t.db;
  });
  afterAll(() => t?.close());

  it('serves a batch of 250 accounts in one call, each as ExtendCreditLine would; a line past its bounds is refused alone', async () => {
    const ids = await funded(249, (i) => 1000 * (i + 1));
    // Every fifth asks only its need; one account has no money at all.
    const lines = [...ids.map((id, i) => ask(id, i % 5 === 0 ? 500 : 0)), ask(`acct_lines_nobody_${seq}`)];
    const bad = [ask(ids[10], 0, -1), ask(ids[11], -5), ask('a'.repeat(MAX_ID_LENGTH + 1))];
    const { outcomes } = await extendMany([...lines.slice(0, 100), bad[0], ...lines.slice(100, 200), bad[1], bad[2], ...lines.slice(200)]);
    expect(outcomes).toHaveLength(253);
    const refused = [100, 201, 202];
    expect(refused.map((i) => outcomes[i])).toEqual(
      refused.map(() => ({ line: undefined, errorCode: status.INVALID_ARGUMENT, errorMessage: expect.any(String) })),
    );
    expect(outcomes[100].errorMessage).toMatch(/returned_total_micro_lyd/);
    const good = outcomes.filter((_, i) => !refused.includes(i));
    expect(good).toEqual(
      ids
        .map((_, i) =>
          served({ grantedTotalMicroLyd: i % 5 === 0 ? 500 : 1000 * (i + 1), balanceMicroLyd: 1000 * (i + 1), heldMicroLyd: 0 }),
        )
        .concat(served({ grantedTotalMicroLyd: 0, balanceMicroLyd: 0 })),
    );
    const after = await money(ids);
    expect(after.map((m) => m.line)).toEqual(ids.map((_, i) => (i % 5 === 0 ? 500 : 1000 * (i + 1))));
    expectSound(after);
    // What ExtendCreditLine answers now is what the batch left.
    expect(await extendOne(ask(ids[6]))).toEqual(good[6].line);

    expect(await extendMany([])).toEqual({ outcomes: [] });
    expect(await codeOf(extendMany(Array.from({ length: 257 }, () => ask(ids[0]))))).toBe(status.INVALID_ARGUMENT);
    // A number past 2^53 - 1 cannot be decoded: the whole call is refused, nothing lent.
    await addBalance(ids[1], 5000);
    expect(await codeOf(extendMany([ask(ids[1]), ask(ids[2], 2 ** 62)]))).toBe(status.INVALID_ARGUMENT);
    expect((await money([ids[1]]))[0]).toMatchObject({ balance: 7000, line: 2000 });
  });

  it('serves an account given twice twice, in order: the need, then all, then a return and a need', async () => {
    const [id] = await funded(1, () => 100_000);
    const { outcomes } = await extendMany([ask(id, 20_000), ask(id), ask(id), ask(id, 1000, 30_000)]);
    // The return takes 30,000 out of the line, then 1,000 of the unlent 30,000 is lent again.
    const totals = { balanceMicroLyd: 100_000, chargedTotalMicroLyd: 0, heldMicroLyd: 0 };
    expect(outcomes).toEqual([
      served({ ...totals, grantedTotalMicroLyd: 20_000, returnedTotalMicroLyd: 0 }),
      served({ ...totals, grantedTotalMicroLyd: 100_000, returnedTotalMicroLyd: 0 }),
      served({ ...totals, grantedTotalMicroLyd: 100_000, returnedTotalMicroLyd: 0 }),
      served({ ...totals, grantedTotalMicroLyd: 101_000, returnedTotalMicroLyd: 30_000 }),
    ]);
    expect(await money([id])).toEqual([{ balance: 100_000, held: 0, line: 71_000, granted: 101_000 }]);
  });

  it('runs calls at once over the same accounts in opposite orders without a deadlock, and never lends past the balance', async () => {
    const ids = await funded(60, () => 50_000);
    const reversed = [...ids].reverse();
    // Both calls start while another transaction holds the first account's row: each waits for it
    // before taking any other. Locking the lines' rows in their given order, the one would then hold
    // ids[1..] and wait for ids[0], the other hold ids[0] and wait for ids[1]: a deadlock.
    const pair = await heldApart(t, 'SELECT FROM billing.balances WHERE account_id = $1 FOR UPDATE', [ids[0]], () =>
      Promise.all([extendMany(ids.map((id) => ask(id, 10_000))), extendMany(reversed.map((id) => ask(id)))]),
    );
    expect(pair.flatMap((r) => r.outcomes).every((o) => o.errorCode === 0)).toBe(true);
    // Whichever went first, each account ends with its whole balance lent, once.
    expect(await money(ids)).toEqual(ids.map(() => ({ balance: 50_000, held: 0, line: 50_000, granted: 50_000 })));

    // Four calls at once in shuffled orders, beside balance changes both ways and single extensions.
    const shuffled = () => [...ids].sort(() => Math.random() - 0.5);
    const answers = await Promise.allSettled([
      ...Array.from({ length: 4 }, (_, k) => extendMany(shuffled().map((id, i) => ask(id, (i + k) % 3 === 0 ? 7000 : 0)))),
      ...ids.slice(0, 20).map((id, i) => addBalance(id, i % 2 ? 10_000 : -5000)),
      ...ids.slice(20, 30).map((id) => extendOne(ask(id))),
    ]);
    const failed = answers
      .filter((a): a is PromiseRejectedResult => a.status === 'rejected')
      .map((a) => (a.reason as { code: number }).code);
    // A negative change finds the whole balance lent: refused by the service, never a deadlock or a constraint (INTERNAL).
    expect(failed.every((code) => code === status.FAILED_PRECONDITION)).toBe(true);
    const after = await money(ids);
    expectSound(after);
    expect(after.slice(0, 20).map((m) => m.balance)).toEqual(ids.slice(0, 20).map((_, i) => (i % 2 ? 60_000 : 50_000)));
  });
});
