import { Database, openDatabase, runMigrations } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { SignInGuard, signInLimits } from '../src/domain/sign-in-guard';
import { CONSOLE_MIGRATIONS } from '../src/store/console-migrations';
import { PgSignInAttemptStore } from '../src/store/pg-sign-in-attempt-store';

const WINDOW_MS = 60_000;
const SLOW_MS = 10_000;

/** SignInGuard's counts on real Postgres, on a clock the test moves. */
describe('SignInGuard on Postgres', () => {
  let testDb: TestDatabase;
  let db: Database;
  let now = Date.UTC(2026, 10, 25, 12);

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
    await runMigrations(db, 'console', CONSOLE_MIGRATIONS);
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  // Two per client, eight per address, four per email before slowing.
  const guard = () => new SignInGuard(new PgSignInAttemptStore(db), signInLimits(2, WINDOW_MS, SLOW_MS), () => now);
  const tries = async (g: SignInGuard, email: string, address: string, count: number, knownDevice?: string) => {
    const outcomes = [];
    for (let i = 0; i < count; i++) outcomes.push(await g.take(email, { address, knownDevice }));
    return outcomes.map((o) => ('ticket' in o ? 'taken' : o.retryAfterMs));
  };

  it('refuses a client past its bound until its window ends, then counts afresh', async () => {
    const g = guard();
    expect(await tries(g, 'a@x.test', '10.1.0.1', 3)).toEqual(['taken', 'taken', WINDOW_MS]);
    now += WINDOW_MS / 2;
    expect(await tries(g, 'a@x.test', '10.1.0.1', 1)).toEqual([WINDOW_MS / 2]);
    now += WINDOW_MS / 2;
    expect(await tries(g, 'a@x.test', '10.1.0.1', 3)).toEqual(['taken', 'taken', WINDOW_MS]);
  });

  it('bounds one address over many emails', async () => {
    const g = guard();
    const outcomes = [];
    for (let i = 0; i < 9; i++) outcomes.push(...(await tries(g, `spray${i}@x.test`, '10.1.0.2', 1)));
    expect(outcomes).toEqual([...Array(8).fill('taken'), WINDOW_MS]);
  });

  it("slows an email guessed from many addresses to one attempt per interval, but not the holder's known browser", async () => {
    const g = guard();
    const fromMany = [];
    for (let i = 0; i < 6; i++) fromMany.push(...(await tries(g, 'b@x.test', `10.2.0.${i}`, 1)));
    expect(fromMany).toEqual(['taken', 'taken', 'taken', 'taken', 'taken', SLOW_MS]);
    now += SLOW_MS;
    expect(await tries(g, 'b@x.test', '10.2.1.1', 2)).toEqual(['taken', SLOW_MS]);
    expect(await tries(g, 'b@x.test', '10.2.1.2', 1, 'device of b')).toEqual(['taken']);
  });

  it('forgets the email on a right password and gives the address its attempt back', async () => {
    const g = guard();
    await tries(g, 'c@x.test', '10.3.0.1', 1);
    const right = await g.take('c@x.test', { address: '10.3.0.1' });
    if (!('ticket' in right)) throw new Error('refused');
    await g.succeeded(right.ticket);
    expect(await tries(g, 'c@x.test', '10.3.0.1', 3)).toEqual(['taken', 'taken', WINDOW_MS]);
    // The address counted 1 wrong + 2 more, not the right one: five more for other emails.
    const others = [];
    for (let i = 0; i < 6; i++) others.push(...(await tries(g, `other${i}@x.test`, '10.3.0.1', 1)));
    expect(others).toEqual([...Array(5).fill('taken'), WINDOW_MS]);
  });

  it('removes counts whose window has ended', async () => {
    const g = guard();
    await tries(g, 'd@x.test', '10.4.0.1', 1);
    now += WINDOW_MS + SLOW_MS;
    await g.deleteEnded();
    expect((await db.query('SELECT count(*)::int AS n FROM console.sign_in_attempts')).rows).toEqual([{ n: 0 }]);
  });

  it('keeps no email or address in the store', async () => {
    const g = guard();
    await tries(g, 'secret-holder@x.test', '10.5.0.1', 1);
    const stored = JSON.stringify((await db.query('SELECT * FROM console.sign_in_attempts')).rows);
    expect(stored).not.toContain('secret-holder');
    expect(stored).not.toContain('10.5.0.1');
  });
});
