import { status } from '@grpc/grpc-js';
import { AuthorizeParams } from '../../src/legacy/domain/hold-ledger';
import { codeOf } from '../billing-test-db';
import { HoldTestDb, openHoldTestDb } from './hold-test-db';

describe('HoldLedger.recordFree on Postgres: the ledger row of a free request', () => {
  let t: HoldTestDb;
  let seq = 0;
  const newAccount = () => `acct_${++seq}`;
  const newRequest = () => `req_${++seq}`;
  const flash = (accountId: string): AuthorizeParams => ({
    requestId: newRequest(),
    accountId,
    model: 'vendor-v4-flash',
    promptTokens: 1000,
    maxTokens: 8192,
  });
  const funded = async (micro: number) => {
    const id = newAccount();
    await t.ledger.addBalance(id, micro);
    return id;
  };

  beforeAll(async () => {
    t = await openHoldTestDb();
  });
  afterAll(() => t.close());

  const free = (accountId: string, requestId = newRequest()) => ({
    requestId,
    accountId,
    model: 'vendor-v4-flash',
    promptTokens: 1200,
    completionTokens: 345,
    usageEstimated: true,
  });
  const ledgerRows = async (requestId: string) =>
    (
      await t.db.query(
        `SELECT account_id, model, prompt_tokens::int, completion_tokens::int, input_micro_per_million::int AS input,
           output_micro_per_million::int AS output, amount_micro::int, paid, usage_estimated FROM billing.ledger WHERE request_id = $1`,
        [requestId],
      )
    ).rows;

  it('writes one row of amount 0, not paid, with the usage as given, and leaves the balance alone', async () => {
    const account = await funded(500);
    const request = free(account);
    expect(await t.holds.recordFree(request)).toBe(true);
    expect(await ledgerRows(request.requestId)).toEqual([
      {
        account_id: account,
        model: 'vendor-v4-flash',
        prompt_tokens: 1200,
        completion_tokens: 345,
        input: 0,
        output: 0,
        amount_micro: 0,
        paid: false,
        usage_estimated: true,
      },
    ]);
    expect(await t.store.getBalance(account)).toEqual({ balanceMicro: 500, heldMicro: 0 });
    expect(await t.holds.recordFree({ ...free(newAccount()), usageEstimated: false })).toBe(true);
  });

  it('writes the row once when recorded again, one after the other or 10 at the same time', async () => {
    const account = newAccount();
    const request = free(account);
    expect(await t.holds.recordFree(request)).toBe(true);
    expect(await t.holds.recordFree({ ...request, completionTokens: 9999 })).toBe(false);
    const twin = free(account);
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => t.holds.recordFree(twin)));
    expect(concurrent.filter(Boolean)).toHaveLength(1);
    const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM billing.ledger WHERE account_id = $1', [account]);
    expect(rows[0].n).toBe(2);
    expect((await ledgerRows(request.requestId))[0]).toMatchObject({ completion_tokens: 345 });
  });

  it('answers a Settle of a free request with its row: nothing charged', async () => {
    const account = await funded(1_000_000);
    const request = free(account);
    await t.holds.recordFree(request);
    expect(await t.holds.settle({ requestId: request.requestId, promptTokens: 1, completionTokens: 1, usageEstimated: false })).toEqual({
      chargedMicro: 0,
      balanceMicro: 1_000_000,
    });
  });

  it("refuses a paid request with FAILED_PRECONDITION, another account's id with ALREADY_EXISTS, bad fields with INVALID_ARGUMENT", async () => {
    const account = await funded(1_000_000);
    const paid = flash(account);
    await t.holds.authorize(paid);
    expect(await codeOf(t.holds.recordFree(free(account, paid.requestId)))).toBe(status.FAILED_PRECONDITION);
    expect(await ledgerRows(paid.requestId)).toEqual([]);

    const request = free(account);
    await t.holds.recordFree(request);
    expect(await codeOf(t.holds.recordFree({ ...request, accountId: newAccount() }))).toBe(status.ALREADY_EXISTS);
    expect(await codeOf(t.holds.recordFree({ ...free(account), model: '' }))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(t.holds.recordFree({ ...free(account), promptTokens: -1 }))).toBe(status.INVALID_ARGUMENT);
  });
});
