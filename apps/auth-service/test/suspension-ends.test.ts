import { Client } from 'pg';
import { AuditActor, Database, openDatabase, PgAuditTrail, PgHolderEvents, runMigrations } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { SUSPENSION_END_ACTOR } from '../src/domain/suspension-end-check';
import { AUTH_MIGRATIONS } from '../src/store/auth-migrations';
import { PgIdentityStore } from '../src/store/pg-identity-store';
import { accountEvents } from './account-events';

const KEY = Buffer.from('the suspension end tests audit key, 32 characters or more');
const OPERATOR: AuditActor = { actor: 'ctl', reason: 'unpaid invoice' };
const HOUR_MS = 3600_000;

/**
 * Suspensions that end at their end time, on Postgres: the account row cleared, its holders told
 * once (`account-unsuspended`) and the end in the audit trail, in one transaction; a suspension
 * still running or without an end left alone; two replicas at once telling each end once.
 */
describe('suspensions ended at their end time (PgIdentityStore, Postgres)', () => {
  let testDb: TestDatabase;
  let db: Database;
  let otherDb: Database;
  let psql: Client;
  let store: PgIdentityStore;
  /** A second replica's store: its own pool on the same database. */
  let otherStore: PgIdentityStore;
  const events = new PgHolderEvents('auth');
  let accounts = 0;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
    otherDb = await openDatabase(testDb.url, '');
    await runMigrations(db, 'auth', AUTH_MIGRATIONS);
    store = new PgIdentityStore(db, new PgAuditTrail('auth', KEY), events);
    otherStore = new PgIdentityStore(otherDb, new PgAuditTrail('auth', KEY), events);
    psql = new Client({ connectionString: testDb.url });
    await psql.connect();
  });

  afterAll(async () => {
    await psql?.end();
    await otherDb?.close();
    await db?.close();
    await testDb?.drop();
  });

  /** A new account suspended by the operator until `until` (null: no end). */
  const suspendedUntil = async (until: Date | null) => {
    const id = `acct_${++accounts}`;
    await store.createAccount(id, `Suspended ${accounts}`);
    await store.setSuspension(id, { until, reason: 'unpaid invoice' }, OPERATOR);
    return id;
  };
  const eventsOf = (accountId: string) => accountEvents(db, accountId);
  const endedEvents = async (accountIds: string[]) =>
    (await Promise.all(accountIds.map(eventsOf))).flat().filter((e) => e.kind === 'account-unsuspended');
  const ended = (until: Date) => ({ kind: 'account-unsuspended', details: { endedAt: until.toISOString(), by: 'expiry' } });
  const endAll = () => store.endDueSuspensions(100, SUSPENSION_END_ACTOR);

  it('ends a suspension past its end, tells its holders and records it once, and leaves one running or without end', async () => {
    const past = new Date(Date.now() - 60_000);
    const future = new Date(Date.now() + HOUR_MS);
    const [due, running, open] = [await suspendedUntil(past), await suspendedUntil(future), await suspendedUntil(null)];

    expect(await endAll()).toBe(1);
    expect(await store.getAccount(due)).toMatchObject({ suspended: false, suspendedUntil: null, suspensionReason: null });
    expect(await store.getAccount(running)).toMatchObject({ suspended: true, suspendedUntil: future, suspensionReason: 'unpaid invoice' });
    expect(await store.getAccount(open)).toMatchObject({ suspended: true, suspendedUntil: null, suspensionReason: 'unpaid invoice' });
    expect(await eventsOf(due)).toEqual([
      { kind: 'account-suspended', details: { until: past.toISOString(), reason: 'unpaid invoice' } },
      ended(past),
    ]);
    for (const id of [running, open]) expect((await eventsOf(id)).map((e) => e.kind)).toEqual(['account-suspended']);
    const trail = await store.auditEntries(due, 10);
    expect(trail.map((e) => ({ action: e.action, details: e.details, actor: e.actor, reason: e.reason }))).toEqual([
      { action: 'account-unsuspended', details: { endedAt: past.toISOString(), by: 'expiry' }, actor: 'auth-service', reason: '' },
      { action: 'account-suspended', details: { until: past.toISOString() }, actor: 'ctl', reason: 'unpaid invoice' },
    ]);

    // A second pass finds nothing due, and records nothing.
    expect(await endAll()).toBe(0);
    expect(await endedEvents([due, running, open])).toEqual([ended(past)]);
    expect(await store.auditEntries(due, 10)).toHaveLength(2);
    expect(await store.verifyAuditTrail()).toMatchObject({ ok: true });
  });

  it('tells each end once when two replicas end suspensions at once, in batches', async () => {
    const until = new Date(Date.now() - 1000);
    const due = await Promise.all(Array.from({ length: 7 }, () => suspendedUntil(until)));
    const counts: number[] = [];
    // Each pass ends at most 2; both replicas go on until neither finds one.
    const drain = async (replica: PgIdentityStore) => {
      for (let n = -1; n !== 0; counts.push(n)) n = await replica.endDueSuspensions(2, SUSPENSION_END_ACTOR);
    };
    await Promise.all([drain(store), drain(otherStore)]);
    expect(counts.every((n) => n <= 2)).toBe(true);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(due.length);
    expect(await endedEvents(due)).toHaveLength(due.length);
    for (const id of due) expect((await store.auditEntries(id, 10)).filter((e) => e.action === 'account-unsuspended')).toHaveLength(1);
    expect(await store.verifyAuditTrail()).toMatchObject({ ok: true });
  });

  it('leaves a suspension that another transaction holds to it, without waiting, and ends it once that is done', async () => {
    const until = new Date(Date.now() - 1000);
    const [held, free] = [await suspendedUntil(until), await suspendedUntil(until)];
    // The operator changing the account right now: its row is locked until that transaction ends
    // (which also holds back every event after it from readers, so they are read after it).
    await psql.query('BEGIN');
    try {
      await psql.query('SELECT 1 FROM auth.accounts WHERE id = $1 FOR UPDATE', [held]);
      expect(await endAll()).toBe(1);
      expect(await store.getAccount(free)).toMatchObject({ suspended: false });
      expect(await store.getAccount(held)).toMatchObject({ suspended: true, suspendedUntil: until });
    } finally {
      await psql.query('COMMIT');
    }
    expect(await endedEvents([held, free])).toEqual([ended(until)]);
    expect((await eventsOf(free)).at(-1)).toEqual(ended(until));
    expect(await endAll()).toBe(1);
    expect((await eventsOf(held)).at(-1)).toEqual(ended(until));
    expect(await endedEvents([held, free])).toHaveLength(2);
  });
});
