import { Database, openDatabase, runMigrations } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { HolderAccess, INVITE_TTL_MS } from '../src/domain/holder-access';
import { sha256Hex } from '../src/domain/secret-token';
import { SignInGuard, signInLimits } from '../src/domain/sign-in-guard';
import { CONSOLE_MIGRATIONS } from '../src/store/console-migrations';
import { PgConsoleStore } from '../src/store/pg-console-store';
import { PgSignInAttemptStore } from '../src/store/pg-sign-in-attempt-store';

const PASSWORD = 'a long enough password';
const DAY_MS = 86_400_000;

/**
 * Invitations, passwords and sessions on real Postgres: links work once and for 30 minutes,
 * sessions expire and end on sign-out or a new password, wrong passwords are counted, and no
 * token or password is stored as it is.
 */
describe('HolderAccess on Postgres (invitations, sign-in, sessions)', () => {
  let testDb: TestDatabase;
  let db: Database;
  let store: PgConsoleStore;
  let account = 0;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
    await runMigrations(db, 'console', CONSOLE_MIGRATIONS);
    store = new PgConsoleStore(db);
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  const accessAt = (now: () => number = Date.now, sessionTtlMs = 3600_000) =>
    new HolderAccess(
      store,
      new SignInGuard(new PgSignInAttemptStore(db), signInLimits(3, 60_000, 60_000), now),
      { sessionTtlMs, publicUrl: 'https://console.example' },
      now,
    );
  const tokenOf = (link: string) => link.slice(link.lastIndexOf('/') + 1);
  const everything = async () =>
    JSON.stringify((await db.query('SELECT * FROM console.holders, console.invites, console.sessions')).rows) +
    JSON.stringify((await db.query('SELECT * FROM console.invites')).rows);

  it('makes a one-time link valid 30 minutes, keeping only its SHA-256', async () => {
    const access = accessAt();
    const before = Date.now();
    const { link, expires } = await access.invite(`acct_${++account}`, '  Ann@Example.COM ');
    expect(link).toMatch(/^https:\/\/console\.example\/invite\/[A-Za-z0-9_-]{43}$/);
    expect(expires.getTime() - before).toBeGreaterThanOrEqual(INVITE_TTL_MS - 1000);
    expect(expires.getTime() - before).toBeLessThanOrEqual(INVITE_TTL_MS + 1000);
    expect(await access.inviteEmail(tokenOf(link))).toBe('ann@example.com');
    const stored = await db.query<{ token_sha256: string }>('SELECT token_sha256 FROM console.invites WHERE email = $1', [
      'ann@example.com',
    ]);
    expect(stored.rows.map((r) => r.token_sha256)).toEqual([sha256Hex(tokenOf(link))]);
    expect(await everything()).not.toContain(tokenOf(link));
    await expect(access.invite('acct_x', 'not an email')).rejects.toThrow(/email/);
  });

  it('sets the password once: a short one is refused and leaves the link usable; the link then works no more', async () => {
    const access = accessAt();
    const { link } = await access.invite(`acct_${++account}`, 'bob@example.com');
    expect(await access.acceptInvite(tokenOf(link), 'short')).toEqual({ problem: expect.stringMatching(/10/) });
    const accepted = await access.acceptInvite(tokenOf(link), PASSWORD);
    expect(accepted).toEqual({ sessionToken: expect.any(String), deviceToken: expect.any(String) });
    expect(await access.acceptInvite(tokenOf(link), PASSWORD)).toBeUndefined();
    expect(await access.inviteEmail(tokenOf(link))).toBeUndefined();
    const holder = await store.findHolderByEmail('bob@example.com');
    expect(holder?.passwordHash).toMatch(/^scrypt\$/);
    expect(await everything()).not.toContain(PASSWORD);
  });

  it('refuses a link past its 30 minutes', async () => {
    const { link } = await accessAt(() => Date.now() - INVITE_TTL_MS - 1000).invite(`acct_${++account}`, 'late@example.com');
    const access = accessAt();
    expect(await access.inviteEmail(tokenOf(link))).toBeUndefined();
    expect(await access.acceptInvite(tokenOf(link), PASSWORD)).toBeUndefined();
  });

  it('signs in with the right password only, counts attempts per client, and ends the session on sign-out', async () => {
    const access = accessAt();
    const { link } = await access.invite(`acct_${++account}`, 'cat@example.com');
    await access.acceptInvite(tokenOf(link), PASSWORD);
    expect(await access.signIn('cat@example.com', 'wrong password 1', '10.0.0.9')).toEqual({ kind: 'wrong' });
    expect(await access.signIn('nobody@example.com', PASSWORD, '10.0.0.9')).toEqual({ kind: 'wrong' });
    const signed = await access.signIn(' CAT@example.com', PASSWORD, '10.0.0.8');
    if (signed.kind !== 'signed-in') throw new Error(`not signed in: ${signed.kind}`);
    const session = await access.session(signed.sessionToken);
    expect(session?.holder).toMatchObject({ email: 'cat@example.com', accountId: `acct_${account}` });
    expect(session?.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await everything()).not.toContain(signed.sessionToken);
    await access.signOut(signed.sessionToken);
    expect(await access.session(signed.sessionToken)).toBeUndefined();
    for (let i = 0; i < 3; i++) await access.signIn('cat@example.com', `wrong ${i}`, '10.0.0.7');
    expect(await access.signIn('cat@example.com', PASSWORD, '10.0.0.7')).toEqual({ kind: 'limited', retryAfterMs: expect.any(Number) });
    expect(await access.signIn('cat@example.com', PASSWORD, '10.0.0.6')).toMatchObject({ kind: 'signed-in' });
  });

  it('lets a session lapse at its expiry, and ends every session of a holder whose password is set again', async () => {
    const { link } = await accessAt().invite(`acct_${++account}`, 'dan@example.com');
    const { sessionToken: lapsed } = (await accessAt(() => Date.now() - DAY_MS, 1000).acceptInvite(tokenOf(link), PASSWORD)) as {
      sessionToken: string;
    };
    expect(await accessAt().session(lapsed)).toBeUndefined();

    const access = accessAt();
    const signed = await access.signIn('dan@example.com', PASSWORD, '10.0.1.1');
    if (signed.kind !== 'signed-in') throw new Error('not signed in');
    const again = await access.invite(`acct_${account}`, 'dan@example.com');
    await access.acceptInvite(tokenOf(again.link), 'another long password');
    expect(await access.session(signed.sessionToken)).toBeUndefined();
    expect(await access.signIn('dan@example.com', PASSWORD, '10.0.1.2')).toEqual({ kind: 'wrong' });
  });

  it('voids every other outstanding link of the email once one is used', async () => {
    const access = accessAt();
    const links = [];
    for (let i = 0; i < 3; i++) links.push(tokenOf((await access.invite(`acct_${++account}`, 'eve@example.com')).link));
    const signed = await access.acceptInvite(links[1], PASSWORD);
    if (!signed || 'problem' in signed) throw new Error('the link was refused');
    for (const other of [links[0], links[2]]) {
      expect(await access.inviteEmail(other)).toBeUndefined();
      expect(await access.acceptInvite(other, 'a password set by whoever holds an old link')).toBeUndefined();
    }
    expect(await access.session(signed.sessionToken)).toBeDefined();
    expect(await access.signIn('eve@example.com', PASSWORD, '10.0.2.1')).toMatchObject({ kind: 'signed-in' });
    // A link made after the password was set (the operator's new invitation) works.
    const later = tokenOf((await access.invite(`acct_${account}`, 'eve@example.com')).link);
    expect(await access.acceptInvite(later, 'the newest password of all')).toMatchObject({ sessionToken: expect.any(String) });
  });

  it('accepts only one of several links of the email used at the same moment', async () => {
    const access = accessAt();
    const links = [];
    for (let i = 0; i < 6; i++) links.push(tokenOf((await access.invite(`acct_${++account}`, 'fay@example.com')).link));
    const outcomes = await Promise.all(links.map((link, i) => access.acceptInvite(link, `password number ${i} of six`)));
    expect(outcomes.filter((o) => o !== undefined)).toHaveLength(1);
    const winner = outcomes.findIndex((o) => o !== undefined);
    expect(await access.signIn('fay@example.com', `password number ${winner} of six`, '10.0.3.1')).toMatchObject({ kind: 'signed-in' });
  });
});
