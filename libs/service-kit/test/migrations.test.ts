import { createTestDatabase, TestDatabase } from '@gw/testing';
import { Database, openDatabase, runMigrations } from '../src';

const MIGRATIONS = [
  { id: '001-table', sql: 'CREATE TABLE mig_test.items (id int PRIMARY KEY); CREATE TABLE mig_test.log (n serial, note text)' },
  { id: '002-row', sql: "INSERT INTO mig_test.log (note) VALUES ('002 ran')" },
];

describe('runMigrations on Postgres', () => {
  let testDb: TestDatabase;
  const opened: Database[] = [];

  beforeAll(async () => {
    testDb = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(opened.map((db) => db.close()));
    await testDb.drop();
  });

  const open = async () => {
    const db = await openDatabase(testDb.url, 'unused');
    opened.push(db);
    return db;
  };

  it('applies each migration exactly once when several replicas start at the same time', async () => {
    const replicas = await Promise.all(Array.from({ length: 4 }, open));
    const applied = await Promise.all(replicas.map((db) => runMigrations(db, 'mig_test', MIGRATIONS)));
    expect(applied.flat().sort()).toEqual(['001-table', '002-row']);
    const { rows } = await replicas[0].query<{ note: string }>('SELECT note FROM mig_test.log');
    expect(rows).toEqual([{ note: '002 ran' }]);
  });

  it('applies only what is new on a later start', async () => {
    const db = await open();
    const later = [...MIGRATIONS, { id: '003-more', sql: "INSERT INTO mig_test.log (note) VALUES ('003 ran')" }];
    expect(await runMigrations(db, 'mig_test', later)).toEqual(['003-more']);
    expect(await runMigrations(db, 'mig_test', later)).toEqual([]);
  });

  it('rolls a failing migration back whole', async () => {
    const db = await open();
    const broken = [...MIGRATIONS, { id: '004-broken', sql: "INSERT INTO mig_test.log (note) VALUES ('004'); SELECT no_such_function()" }];
    await expect(runMigrations(db, 'mig_test', broken)).rejects.toThrow();
    const { rows } = await db.query<{ n: string }>("SELECT count(*)::text AS n FROM mig_test.log WHERE note = '004'");
    expect(rows[0].n).toBe('0');
  });
});
