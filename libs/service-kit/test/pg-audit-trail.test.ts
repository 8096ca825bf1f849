import { Client } from 'pg';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import {
  ChainPoint,
  createLogger,
  logAuditCheckpoints,
  auditTrailKeyMigration,
  auditTrailMigration,
  Database,
  entryHash,
  openDatabase,
  PgAuditTrail,
  runMigrations,
} from '../src';

const SCHEMA = 'trail_test';

describe('PgAuditTrail on Postgres', () => {
  let testDb: TestDatabase;
  let db: Database;
  let psql: Client;
  const KEY = Buffer.from('the trail tests audit key, of 32 characters or more');
  const trail = new PgAuditTrail(SCHEMA, KEY);

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, 'unused');
    await runMigrations(db, SCHEMA, [
      auditTrailMigration('001-audit-trail', SCHEMA),
      auditTrailKeyMigration('002-audit-trail-keyed', SCHEMA),
    ]);
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
    expect(await trail.verify(db)).toMatchObject({ entries: 0, ok: true, unkeyedEntries: 0 });
    await Promise.all(Array.from({ length: 40 }, (_, i) => append(i + 1)));
    expect(await trail.verify(db)).toMatchObject({ entries: 40, ok: true, unkeyedEntries: 0 });
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
    expect(await trail.verify(db)).toMatchObject({ entries: 41, ok: true, unkeyedEntries: 0 });
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
    expect(await trail.verify(db)).toMatchObject({
      entries: 41,
      ok: false,
      firstBad: { seq: 7, problem: 'edited', detail: expect.any(String) },
    });
    await psql.query(`UPDATE ${SCHEMA}.audit_log SET details = $1 WHERE seq = 7`, [rows[0].details]);
    expect(await trail.verify(db)).toMatchObject({ entries: 41, ok: true, unkeyedEntries: 0 });
  });

  it('logs the last link as a checkpoint, as ctl audit-log checkpoint prints it, and an error for a head not keyed under the key', async () => {
    const lines: Array<Record<string, unknown>> = [];
    let heard: () => void = () => undefined;
    const logger = createLogger('trail-test', 'info', (line) => {
      lines.push(JSON.parse(line) as Record<string, unknown>);
      heard();
    });
    const next = () => new Promise<Record<string, unknown>>((resolve) => (heard = () => resolve(lines[lines.length - 1])));
    const logged = next();
    const task = logAuditCheckpoints('trail-test', trail, db, KEY, 60_000, logger);
    const line = await logged;
    await task.stop();
    const head = (await trail.verify(db)).head as ChainPoint;
    expect(line).toMatchObject({ level: 'info', msg: 'audit checkpoint', service: 'trail-test', ...head });

    const other = new PgAuditTrail(SCHEMA, Buffer.from('not the key the chain was written with, 32+ chars'));
    const refused = next();
    const wrongKey = logAuditCheckpoints(
      'trail-test',
      other,
      db,
      Buffer.from('not the key the chain was written with, 32+ chars'),
      60_000,
      logger,
    );
    expect(await refused).toMatchObject({ level: 'error', msg: 'audit chain head is not keyed under AUDIT_KEY: no checkpoint logged' });
    await wrongKey.stop();
  });

  it('names the first link rewritten and re-hashed with SQL, as one without the key would, and a head rolled back against a checkpoint', async () => {
    const saved = (await psql.query(`SELECT * FROM ${SCHEMA}.audit_log ORDER BY seq`)).rows;
    const savedHead = (await psql.query(`SELECT seq, hash FROM ${SCHEMA}.audit_head`)).rows[0];
    const checkpoint = (await trail.verify(db)).head as ChainPoint;
    // The recipe: change entry 5, then recompute every hash from it on and move the head.
    await psql.query(`UPDATE ${SCHEMA}.audit_log SET reason = 'rewritten' WHERE seq = 5`);
    let prevHash = saved[3].hash as string;
    for (const row of saved.slice(4)) {
      const entry = (await psql.query(`SELECT * FROM ${SCHEMA}.audit_log WHERE seq = $1`, [row.seq])).rows[0];
      const hash = entryHash(prevHash, {
        seq: Number(entry.seq),
        at: entry.at,
        accountId: entry.account_id,
        action: entry.action,
        details: entry.details,
        actor: entry.actor,
        reason: entry.reason,
      });
      await psql.query(`UPDATE ${SCHEMA}.audit_log SET prev_hash = $2, hash = $3 WHERE seq = $1`, [row.seq, prevHash, hash]);
      prevHash = hash;
    }
    await psql.query(`UPDATE ${SCHEMA}.audit_head SET hash = $1`, [prevHash]);
    expect(await trail.verify(db)).toMatchObject({ ok: false, firstBad: { seq: 5, problem: 'forged' } });
    for (const row of saved.slice(4))
      await psql.query(`UPDATE ${SCHEMA}.audit_log SET reason = $2, prev_hash = $3, hash = $4 WHERE seq = $1`, [
        row.seq,
        row.reason,
        row.prev_hash,
        row.hash,
      ]);
    await psql.query(`UPDATE ${SCHEMA}.audit_head SET hash = $1`, [savedHead.hash]);
    expect(await trail.verify(db, checkpoint)).toMatchObject({ ok: true });
    // The last entries deleted and the head moved back: only a checkpoint kept elsewhere tells.
    await psql.query(`DELETE FROM ${SCHEMA}.audit_log WHERE seq > 38`);
    await psql.query(`UPDATE ${SCHEMA}.audit_head SET seq = 38, hash = $1`, [saved[37].hash]);
    expect(await trail.verify(db)).toMatchObject({ ok: true, entries: 38 });
    expect(await trail.verify(db, checkpoint)).toMatchObject({ ok: false, firstBad: { seq: 41, problem: 'checkpoint-cut' } });
    for (const row of saved.slice(38))
      await psql.query(
        `INSERT INTO ${SCHEMA}.audit_log (seq, at, account_id, action, details, actor, reason, prev_hash, hash, mac)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [row.seq, row.at, row.account_id, row.action, row.details, row.actor, row.reason, row.prev_hash, row.hash, row.mac],
      );
    await psql.query(`UPDATE ${SCHEMA}.audit_head SET seq = $1, hash = $2`, [savedHead.seq, savedHead.hash]);
    expect(await trail.verify(db, checkpoint)).toMatchObject({ ok: true, entries: 41 });
  });

  it('names the entry after one deleted with SQL, and the first missing one when the last is deleted', async () => {
    await psql.query(`DELETE FROM ${SCHEMA}.audit_log WHERE seq = 41`);
    expect(await trail.verify(db)).toMatchObject({ entries: 40, ok: false, firstBad: { seq: 41, problem: 'missing' } });
    await psql.query(`DELETE FROM ${SCHEMA}.audit_log WHERE seq = 12`);
    expect(await trail.verify(db)).toMatchObject({
      entries: 39,
      ok: false,
      firstBad: { seq: 13, problem: 'missing', detail: 'entry 12 is missing before it' },
    });
  });
});
