import { status } from '@grpc/grpc-js';
import { MAX_ID_LENGTH } from '@gw/bounds';
import { billingV1 } from '@gw/contracts';
import { BillingTestApps, BillingTestClient, codeOf, startBillingTestApps } from './billing-test-db';

const DEADLINE_MS = 10_000;

/**
 * billing.v1 ListCreditLines over gRPC, on Postgres: the lines lent now (line > 0), a page at a
 * time by account id, with their cumulative totals, so that quota-service can find the lines its
 * store no longer knows.
 */
describe('billing.v1 ListCreditLines', () => {
  let t: BillingTestApps;
  let client: BillingTestClient;

  const list = (afterAccountId: string, limit: number): Promise<billingV1.ListCreditLinesResponse> =>
    client.listCreditLines({ afterAccountId, limit, accountIds: [] });

  beforeAll(async () => {
    t = await startBillingTestApps(1, {}, DEADLINE_MS);
    [client] = t.clients;
  });
  afterAll(() => t?.close());

  it('lists the lines lent now by account id, page after page, leaving out the accounts whose line is 0', async () => {
    const ids = ['acct_list_1', 'acct_list_2', 'acct_list_3', 'acct_list_4'];
    for (const id of ids) await client.addBalance({ accountId: id, amountMicroLyd: 10_000 });
    for (const id of ids.slice(0, 3)) await client.extendCreditLine({ accountId: id, returnedTotalMicroLyd: 0, needMicroLyd: 0 });
    // acct_list_2 gives 4,000 back; acct_list_3 gives all back: its line is 0.
    await client.applyBills({
      bills: [],
      returns: [
        { accountId: 'acct_list_2', returnedTotalMicroLyd: 4000 },
        { accountId: 'acct_list_3', returnedTotalMicroLyd: 10_000 },
      ],
    });
    const first = await list('', 1);
    expect(first.lines).toEqual([
      { accountId: 'acct_list_1', grantedTotalMicroLyd: 10_000, chargedTotalMicroLyd: 0, returnedTotalMicroLyd: 0 },
    ]);
    expect(await list('acct_list_1', 10)).toEqual({
      lines: [{ accountId: 'acct_list_2', grantedTotalMicroLyd: 10_000, chargedTotalMicroLyd: 0, returnedTotalMicroLyd: 4000 }],
    });
    expect(await list('acct_list_2', 10)).toEqual({ lines: [] });
  });

  it('gives the lines of the accounts asked for, whatever their line, leaving out accounts without a balance', async () => {
    const of = (accountIds: string[]): Promise<billingV1.ListCreditLinesResponse> =>
      client.listCreditLines({ afterAccountId: '', limit: 0, accountIds });
    for (const id of ['acct_of_1', 'acct_of_2']) await client.addBalance({ accountId: id, amountMicroLyd: 5000 });
    await client.extendCreditLine({ accountId: 'acct_of_2', returnedTotalMicroLyd: 0, needMicroLyd: 0 });
    expect(await of(['acct_of_2', 'acct_of_nobody', 'acct_of_1'])).toEqual({
      lines: [
        { accountId: 'acct_of_1', grantedTotalMicroLyd: 0, chargedTotalMicroLyd: 0, returnedTotalMicroLyd: 0 },
        { accountId: 'acct_of_2', grantedTotalMicroLyd: 5000, chargedTotalMicroLyd: 0, returnedTotalMicroLyd: 0 },
      ],
    });
    expect(await codeOf(of(Array.from({ length: 1001 }, (_, i) => `acct_of_${i}`)))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(of(['acct\u0000']))).toBe(status.INVALID_ARGUMENT);
  });

  it('refuses a limit out of 1 to 1,000 or a bad account id', async () => {
    for (const [after, limit] of [
      ['', 0],
      ['', 1001],
      ['a'.repeat(MAX_ID_LENGTH + 1), 10],
      ['acct\u0000', 10],
    ] as const) {
      expect(await codeOf(list(after, limit))).toBe(status.INVALID_ARGUMENT);
    }
  });
});
