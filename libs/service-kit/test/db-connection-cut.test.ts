import { Client } from 'pg';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { openDatabase } from '../src';

/** A transaction whose connection the server cuts between two statements (pg_terminate_backend, a failover). */
describe('a transaction whose connection is cut', () => {
  let testDb: TestDatabase;
  let admin: Client;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    admin = new Client({ connectionString: testDb.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await testDb?.drop();
  });

  it('fails that transaction alone, without ending the process, and the next statements run on a new connection', async () => {
    const db = await openDatabase(testDb.url, '');
    try {
      await expect(
        db.transaction(async (tx) => {
          const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
          // The server has let the connection go: its end reaches the client while no statement runs.
          for (;;) {
            const gone = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [rows[0].pid]);
            if (gone.rows[0].n === 0) break;
          }
          await new Promise((resolve) => setImmediate(resolve));
          await tx.query('SELECT 1');
        }),
      ).rejects.toThrow();
      const answers = await Promise.all(Array.from({ length: 12 }, () => db.query<{ one: number }>('SELECT 1 AS one')));
      expect(answers.map((a) => a.rows[0].one)).toEqual(Array(12).fill(1));
      expect(await db.transaction(async (tx) => (await tx.query<{ two: number }>('SELECT 2 AS two')).rows[0].two)).toBe(2);
    } finally {
      await db.close();
    }
  });
});
