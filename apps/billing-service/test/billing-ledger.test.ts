import { status } from '@grpc/grpc-js';
import { BillingTestDb, codeOf, openBillingTestDb } from './billing-test-db';

describe('BillingLedger on Postgres', () => {
  let t: BillingTestDb;
  let seq = 0;
  const newAccount = () => `acct_${++seq}`;
  const funded = async (micro: number) => {
    const id = newAccount();
    await t.ledger.addBalance(id, micro);
    return id;
  };

  beforeAll(async () => {
    t = await openBillingTestDb();
  });
  afterAll(() => t.close());

  describe('balances and prices', () => {
    it('takes money away with a negative amount, but never below zero', async () => {
      const account = await funded(100_000);
      expect(await t.ledger.addBalance(account, -40_000)).toBe(60_000);
      expect(await codeOf(t.ledger.addBalance(account, -60_001))).toBe(status.FAILED_PRECONDITION);
      expect(await t.ledger.addBalance(account, -60_000)).toBe(0);
      expect(await codeOf(t.ledger.addBalance(newAccount(), -1))).toBe(status.FAILED_PRECONDITION);
    });

    it('refuses a balance past 2^53 - 1 micro-LYD with OUT_OF_RANGE and keeps the balance as it was', async () => {
      const account = await funded(Number.MAX_SAFE_INTEGER - 5);
      expect(await codeOf(t.ledger.addBalance(account, 6))).toBe(status.OUT_OF_RANGE);
      await expect(t.ledger.addBalance(account, Number.MAX_SAFE_INTEGER)).rejects.toThrow(/would pass 9007199254740991 micro-LYD/);
      expect(await t.store.getBalance(account)).toEqual({ balanceMicro: Number.MAX_SAFE_INTEGER - 5, heldMicro: 0 });
      expect(await t.ledger.addBalance(account, 5)).toBe(Number.MAX_SAFE_INTEGER);
      expect(await t.ledger.getBalance(account)).toBe(Number.MAX_SAFE_INTEGER);
      expect(await t.ledger.addBalance(account, -1)).toBe(Number.MAX_SAFE_INTEGER - 1);
    });

    it('cannot store a balance past 2^53 - 1 micro-LYD, whatever the statement', async () => {
      const account = await funded(1);
      const write = t.db.query('UPDATE billing.balances SET balance_micro = 9007199254740992 WHERE account_id = $1', [account]);
      await expect(write).rejects.toThrow(/balance_within_safe_range/);
      expect(await t.ledger.getBalance(account)).toBe(1);
    });

    it('reads 0 for an account that never had money', async () => {
      expect(await t.ledger.getBalance('acct_unknown')).toBe(0);
    });

    it('upserts a price and returns the stored row', async () => {
      const row = { model: 'vendor-v5', inputMicroPerMillion: 2_500_000, outputMicroPerMillion: 10_000_000 };
      expect(await t.ledger.setPrice(row)).toEqual(row);
      expect(await t.ledger.setPrice({ ...row, outputMicroPerMillion: 11 })).toEqual({ ...row, outputMicroPerMillion: 11 });
      expect((await t.store.priceTable()).prices).toContainEqual({ ...row, outputMicroPerMillion: 11 });
      expect(await codeOf(t.ledger.setPrice({ ...row, inputMicroPerMillion: -1 }))).toBe(status.INVALID_ARGUMENT);
    });
  });
});
