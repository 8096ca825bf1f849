import { Database, openDatabase, runMigrations } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { CONSOLE_MIGRATIONS } from '../src/store/console-migrations';
import { PgLowBalanceStore } from '../src/store/pg-low-balance-store';

/** The low-balance thresholds on Postgres: one per account, exact to the micro-LYD. */
describe('PgLowBalanceStore on Postgres', () => {
  let testDb: TestDatabase;
  let db: Database;
  let store: PgLowBalanceStore;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
    await runMigrations(db, 'console', CONSOLE_MIGRATIONS);
    store = new PgLowBalanceStore(db);
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('keeps one threshold per account, replaced by the next, removed with none', async () => {
    expect(await store.threshold('acct_a')).toBeUndefined();
    await store.setThreshold('acct_a', 2_500_000, 'holder_1');
    await store.setThreshold('acct_b', 0, 'holder_2');
    expect([await store.threshold('acct_a'), await store.threshold('acct_b')]).toEqual([2_500_000, 0]);
    await store.setThreshold('acct_a', Number.MAX_SAFE_INTEGER, 'holder_3');
    expect(await store.threshold('acct_a')).toBe(Number.MAX_SAFE_INTEGER);
    expect(
      (await db.query<{ set_by: string }>('SELECT set_by FROM console.low_balance_thresholds WHERE account_id = $1', ['acct_a'])).rows,
    ).toEqual([{ set_by: 'holder_3' }]);
    await store.setThreshold('acct_a', undefined, 'holder_1');
    expect(await store.threshold('acct_a')).toBeUndefined();
    expect(await store.threshold('acct_b')).toBe(0);
  });

  it('refuses a negative threshold in the schema too', async () => {
    await expect(store.setThreshold('acct_c', -1, 'holder_1')).rejects.toThrow();
    expect(await store.threshold('acct_c')).toBeUndefined();
  });
});
