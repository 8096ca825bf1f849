import { Client } from 'pg';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { auditTrailMigration, Database, openDatabase, PgAuditTrail, runMigrations } from '../src';

const SCHEMA = 'trail_test';

describe('PgAuditTrail on Postgres', () => {
  let testDb: TestDatabase;
  let db: Database;
  let psql: Client;
  const trail = new PgAuditTrail(SCHEMA);

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, 'unused');
    await runMigrations(db, SCHEMA, [auditTrailMigration('001-audit-trail', SCHEMA)]);
    psql = new Client({ connectionString: testDb.url });
    await psql.connect();
  });
  afterAll(async () => {
    await psql?.end();
    await db?.close();
    await testDb?.drop();
  });

  const append = (n: number) =>
    db.transaction((tx) =>
      trail.append(tx, {
        accountId: n % 3 ? `acct_${n % 3}` : null,
        action: 'key-created',
        details: { keyId: `key_${n}`, prefix: 'sk-shfr-0123', n },
        actor: 'ctl',
        reason: `run ${n}`,
      }),
    );

  it('forms one valid chain from appends made at once, each seq once and in order', async () => {
    expect(await trail.verify(db)).toEqual({ entries: 0, ok: true });
    await Promise.all(Array.from({ length: 40 }, (_, i) => append(i + 1)));
    expect(await trail.verify(db)).toEqual({ entries: 40, ok: true });
    const { rows } = await psql.query<{ seq: string }>(`SELECT seq FROM ${SCHEMA}.audit_log ORDER BY seq`);
    expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it('leaves no entry, and no gap, for a change whose transaction rolled back', async () => {
    await expect(
      db.transaction(async (tx) => {
        await trail.append(tx, { accountId: 'acct_1', action: 'key-revoked', details: {}, actor: 'ctl', reason: '' });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await append(41);
    expect(await trail.verify(db)).toEqual({ entries: 41, ok: true });
  });

  it("lists an account's entries newest first, only that account's", async () => {
    const entries = await trail.forAccount(db, 'acct_1', 5);
    expect(entries).toHaveLength(5);
    expect(entries.every((e) => e.accountId === 'acct_1')).toBe(true);
    expect(entries.map((e) => e.seq)).toEqual([...entries.map((e) => e.seq)].sort((a, b) => b - a));
  });

  it('names an entry whose details were edited with SQL, and passes again once they are put back', async () => {
    const { rows } = await psql.query<{ details: unknown }>(`SELECT details FROM ${SCHEMA}.audit_log WHERE seq = 7`);
    await psql.query(`UPDATE ${SCHEMA}.audit_log SET details = jsonb_set(details, '{prefix}', '"sk-shfr-ffff"') WHERE seq = 7`);
    expect(await trail.verify(db)).toEqual({ entries: 41, ok: false, firstBad: { seq: 7, problem: 'edited', detail: expect.any(String) } });
    await psql.query(`UPDATE ${SCHEMA}.audit_log SET details = $1 WHERE seq = 7`, [rows[0].details]);
    expect(await trail.verify(db)).toEqual({ entries: 41, ok: true });
  });

  it('names the entry after one deleted with SQL, and the first missing one when the last is deleted', async () => {
    await psql.query(`DELETE FROM ${SCHEMA}.audit_log WHERE seq = 41`);
    expect(await trail.verify(db)).toMatchObject({ entries: 40, ok: false, firstBad: { seq: 41, problem: 'missing' } });
    await psql.query(`DELETE FROM ${SCHEMA}.audit_log WHERE seq = 12`);
    expect(await trail.verify(db)).toEqual({
      entries: 39,
      ok: false,
      firstBad: { seq: 13, problem: 'missing', detail: 'entry 12 is missing before it' },
    });
  });
});
