import { createTestDatabase, freePort, TestDatabase } from '@gw/testing';
import { openDatabase, renderMetrics } from '../src';

const unavailableCount = async () => Number(/^db_unavailable_total (\S+)$/m.exec(await renderMetrics())?.[1] ?? 0);

/** db_unavailable_total counts what the "PostgreSQL unavailable" alert watches: the server gone, not a bad statement. */
describe('db_unavailable_total', () => {
  let testDb: TestDatabase;

  beforeAll(async () => {
    testDb = await createTestDatabase();
  });
  afterAll(() => testDb.drop());

  it('counts a statement and a transaction PostgreSQL cannot be reached for', async () => {
    const db = await openDatabase(`postgres://root@127.0.0.1:${await freePort()}/test`, '');
    const before = await unavailableCount();
    await expect(db.query('SELECT 1')).rejects.toThrow();
    await expect(db.transaction(async (tx) => tx.query('SELECT 1'))).rejects.toThrow();
    expect(await unavailableCount()).toBe(before + 2);
    await db.close();
  });

  it('does not count a statement the server refused', async () => {
    const db = await openDatabase(testDb.url, '');
    const before = await unavailableCount();
    await expect(db.query('SELECT * FROM no_such_table')).rejects.toThrow(/no_such_table/);
    await expect(db.query('SELECT 1 / 0')).rejects.toThrow(/division by zero/);
    expect(await unavailableCount()).toBe(before);
    await db.close();
  });
});
