import { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { createLogger, Database, openDatabase, runMigrations } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { AuthClient } from '../src/clients/auth-client';
import { MoneyClients } from '../src/clients/money-clients';
import { HolderAccess } from '../src/domain/holder-access';
import { SignInGuard, signInLimits } from '../src/domain/sign-in-guard';
import { startConsoleServer } from '../src/http/console-server';
import { CONSOLE_MIGRATIONS } from '../src/store/console-migrations';
import { NotifierClient } from '../src/clients/notifier-client';
import { MailSwitchStore } from '../src/store/mail-switch-store';
import { PgConsoleStore } from '../src/store/pg-console-store';
import { PgSignInAttemptStore } from '../src/store/pg-sign-in-attempt-store';

/**
 * Sign-in attempts are counted per email and client address: behind the ingress (CONSOLE_TRUST_PROXY_HOPS=1)
 * that is the address the proxy forwards, so one client's failures do not lock out the others
 * who come through the same proxy; reached directly, the peer's address, whatever a client claims.
 */
describe('sign-in attempts by client address (POST /sign-in)', () => {
  let testDb: TestDatabase;
  let db: Database;
  const servers: Server[] = [];

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
    await runMigrations(db, 'console', CONSOLE_MIGRATIONS);
  });

  afterAll(async () => {
    for (const server of servers) await new Promise((r) => server.close(r));
    await db?.close();
    await testDb?.drop();
  });

  /** A console's pages alone (the sign-in form needs no other service), behind `hops` trusted proxies. */
  const consoleAt = async (hops: number) => {
    const access = new HolderAccess(
      new PgConsoleStore(db),
      new SignInGuard(new PgSignInAttemptStore(db), signInLimits(2, 60_000, 60_000)),
      { sessionTtlMs: 60_000, publicUrl: 'http://x' },
    );
    const unused = {} as AuthClient & MoneyClients & NotifierClient & MailSwitchStore;
    const server = await startConsoleServer(
      {
        access,
        auth: unused,
        money: unused,
        notifier: unused,
        mailSwitches: unused,
        sessionTtlMs: 60_000,
        secureCookies: false,
        trustProxyHops: hops,
        logger: createLogger('console', 'error', () => undefined),
      },
      '127.0.0.1',
      0,
    );
    servers.push(server);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return async (email: string, forwardedFor: string) => {
      const form = await fetch(`${base}/sign-in`);
      const cookie = (form.headers.get('set-cookie') ?? '').split(';')[0];
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
      const res = await fetch(`${base}/sign-in`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forwardedFor },
        body: new URLSearchParams({ _csrf: csrf, email, password: 'not the password' }).toString(),
        redirect: 'manual',
      });
      return res.status;
    };
  };

  it('behind one proxy, counts each forwarded client apart', async () => {
    const signIn = await consoleAt(1);
    expect([await signIn('a@example.com', '203.0.113.1'), await signIn('a@example.com', '203.0.113.1')]).toEqual([401, 401]);
    expect(await signIn('a@example.com', '203.0.113.1')).toBe(429);
    expect(await signIn('a@example.com', '203.0.113.2')).toBe(401);
  });

  it('reached directly, counts the peer and ignores what a client forwards', async () => {
    const signIn = await consoleAt(0);
    expect([await signIn('e@example.com', '198.51.100.1'), await signIn('e@example.com', '198.51.100.2')]).toEqual([401, 401]);
    expect(await signIn('e@example.com', '198.51.100.3')).toBe(429);
  });
});
