import { createTestDatabase, eventually, TestDatabase } from '@gw/testing';
import {
  createLogger,
  Database,
  HolderEvent,
  HolderEventCursor,
  HolderEventFeed,
  holderEventsMigration,
  openDatabase,
  PgHolderEvents,
  Queryable,
  runMigrations,
  START_CURSOR,
} from '../src';

const SCHEMA = 'hev_test';
const logger = createLogger('holder-events-test', 'error');
const event = (n: number) => ({ accountId: `acct_${n}`, kind: 'top-up-credited' as const, details: { n } });

/** A transaction held open until `commit` or `rollback`: the test decides when it ends. */
function openTransaction(db: Database) {
  let end!: (commit: boolean) => void;
  const decided = new Promise<boolean>((resolve) => (end = resolve));
  let ready!: (tx: Queryable) => void;
  const started = new Promise<Queryable>((resolve) => (ready = resolve));
  const done = db
    .transaction(async (tx) => {
      ready(tx);
      if (!(await decided)) throw new Error('rolled back by the test');
    })
    .catch((err: Error) => {
      if (err.message !== 'rolled back by the test') throw err;
    });
  return { started, commit: () => (end(true), done), rollback: () => (end(false), done) };
}

/** Reads every settled event after `cursor`, as a resuming reader does: the events and the new cursor. */
async function readAll(events: PgHolderEvents, db: Database, cursor: HolderEventCursor) {
  const taken: HolderEvent[] = [];
  for (;;) {
    const page = await events.after(db, cursor, 3);
    taken.push(...page.events);
    if (page.events.length > 0) cursor = page.events[page.events.length - 1].cursor;
    if (page.events.length < 3) return { taken, cursor, held: page.held };
  }
}

/**
 * As readAll, once nothing is held back: a transaction of any database of the server (another
 * test's) holds back what committed after it began.
 */
const readSettled = (events: PgHolderEvents, db: Database, cursor: HolderEventCursor) =>
  eventually(
    () => readAll(events, db, cursor),
    (r) => !r.held,
    { what: 'no event held back' },
  );

describe('holder events on Postgres', () => {
  let testDb: TestDatabase;
  let db: Database;
  let other: Database;
  const events = new PgHolderEvents(SCHEMA);

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
    other = await openDatabase(testDb.url, '');
    await runMigrations(db, SCHEMA, [holderEventsMigration('001-holder-events', SCHEMA)]);
  });
  afterAll(async () => {
    await Promise.all([db?.close(), other?.close()]);
    await testDb?.drop();
  });
  beforeEach(() => db.query(`TRUNCATE ${SCHEMA}.holder_events`));

  it('holds back an event of a later transaction until an earlier one ends, then reads both in order, none twice', async () => {
    // `early` takes its transaction id first, and records its event after `late` has committed one.
    const early = openTransaction(db);
    const earlyTx = await early.started;
    await earlyTx.query('SELECT pg_current_xact_id()');
    await other.transaction((tx) => events.record(tx, event(2)));
    await events.record(earlyTx, event(1));

    const before = await readAll(events, db, START_CURSOR);
    expect(before.taken).toEqual([]);
    expect(before.held).toBe(true);

    await early.commit();
    const after = await readSettled(events, db, before.cursor);
    expect(after.taken.map((e) => e.details.n)).toEqual([1, 2]);
    expect(after.held).toBe(false);
    expect((await readAll(events, db, after.cursor)).taken).toEqual([]);
  });

  it('reads an event whose id is lower than one already read, when its transaction commits after', async () => {
    const slow = openTransaction(db);
    await events.record(await slow.started, event(1));
    await other.transaction((tx) => events.record(tx, event(2)));
    const first = await readAll(events, db, START_CURSOR);
    expect(first.taken).toEqual([]);
    await slow.commit();
    const second = await readSettled(events, db, first.cursor);
    expect(second.taken.map((e) => e.details.n)).toEqual([1, 2]);
  });

  it('keeps nothing of a transaction rolled back', async () => {
    const undone = openTransaction(db);
    await events.record(await undone.started, event(1));
    await undone.rollback();
    await db.transaction((tx) => events.record(tx, event(2)));
    expect((await readSettled(events, db, START_CURSOR)).taken.map((e) => e.details.n)).toEqual([2]);
  });

  it('gives a reader resuming from its cursor every event of concurrent transactions exactly once', async () => {
    const writers = 12;
    const perWriter = 5;
    const taken: HolderEvent[] = [];
    let cursor = START_CURSOR;
    let writing = true;
    const reader = (async () => {
      while (writing || taken.length < writers * perWriter) {
        const page = await readAll(events, other, cursor);
        taken.push(...page.taken);
        cursor = page.cursor;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await Promise.all(
      Array.from({ length: writers }, (_, w) =>
        db.transaction(async (tx) => {
          for (let i = 0; i < perWriter; i++) {
            await events.record(tx, event(w * perWriter + i));
            // Interleave: others insert (and commit) between this transaction's rows, each writer
            // yielding a different number of turns (no timer: the order, not the time, matters).
            for (let turn = (w * 7 + i * 3) % 11; turn >= 0; turn--) await new Promise((resolve) => setImmediate(resolve));
          }
        }),
      ),
    );
    writing = false;
    await reader;
    const ns = taken.map((e) => Number(e.details.n));
    expect([...ns].sort((a, b) => a - b)).toEqual(Array.from({ length: writers * perWriter }, (_, n) => n));
    expect(new Set(taken.map((e) => e.id)).size).toBe(taken.length);
  });

  it('feeds a watcher on the commit notification, and keeps no listening connection once it has gone', async () => {
    const listeners = async () =>
      Number(
        (
          await db.query<{ n: string }>(
            "SELECT count(*)::text AS n FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN hev_test_holder_events'",
          )
        ).rows[0].n,
      );
    // A poll far beyond the test: only the notification can bring the event in time.
    const feed = new HolderEventFeed(db, events, 600_000, logger);
    expect(await listeners()).toBe(0);
    const received: HolderEvent[] = [];
    const watch = feed.add(START_CURSOR, { send: async (sent) => void received.push(...sent), end: () => undefined });
    await eventually(listeners, (n) => n === 1, { what: 'a listening connection' });
    await other.transaction((tx) => events.record(tx, event(7), event(8)));
    await eventually(
      () => received.map((e) => e.details.n),
      (ns) => ns.length === 2,
      { what: 'both events' },
    );
    expect(received.map((e) => e.details.n)).toEqual([7, 8]);
    watch.remove();
    await eventually(listeners, (n) => n === 0, { what: 'the listening connection closed' });
  });
});
