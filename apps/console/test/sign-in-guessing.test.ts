import { createLogger, Database, openDatabase } from '@gw/service-kit';
import { createTestDatabase, TestDatabase } from '@gw/testing';
import { ConsoleApp, startConsoleApp } from '../src/console-app';
import { loadConfig } from '../src/config';
import { hashPassword } from '../src/domain/password-hash';
import { newSecretToken } from '../src/domain/secret-token';
import { PgConsoleStore } from '../src/store/pg-console-store';

const PASSWORD = 'the holder knows this one';

/**
 * Guessing passwords against two console replicas that share Postgres, every guess sent at the
 * same moment: per email and client address only `SIGN_IN_MAX_FAILURES` guesses are checked
 * whatever the replica and however many arrive together, and a stranger's guesses, from one
 * address or from many, do not lock the holder out of their console.
 */
describe('sign-in guesses sent together to two console replicas', () => {
  let testDb: TestDatabase;
  let db: Database;
  const replicas: ConsoleApp[] = [];
  let bases: string[];

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const env = {
      DATABASE_URL: testDb.url,
      GRPC_INSECURE: 'true',
      BIND_HOST: '127.0.0.1',
      CONSOLE_PORT: '0',
      CONSOLE_GRPC_PORT: '0',
      CONSOLE_METRICS_PORT: '0',
      CONSOLE_TRUST_PROXY_HOPS: '1',
      SIGN_IN_MAX_FAILURES: '5',
      SIGN_IN_SLOW_INTERVAL_MS: '30000',
    };
    const logger = createLogger('console', 'error', () => undefined);
    replicas.push(await startConsoleApp(loadConfig(env), logger), await startConsoleApp(loadConfig(env), logger));
    bases = replicas.map((r) => `http://127.0.0.1:${r.httpPort}`);
    db = await openDatabase(testDb.url, '');
    // A holder with a password, made as an accepted invitation makes one.
    const store = new PgConsoleStore(db);
    for (const email of ['ann@example.com', 'bob@example.com', 'cyd@example.com']) {
      const invite = newSecretToken();
      await store.addInvite({ tokenSha256: invite.sha256, email, accountId: `acct_${email[0]}`, expiresAt: new Date(Date.now() + 60_000) });
      await store.acceptInvite(invite.sha256, `holder_${email[0]}`, await hashPassword(PASSWORD));
    }
  }, 60_000);

  afterAll(async () => {
    for (const replica of replicas) await replica.stop();
    await db?.close();
    await testDb?.drop();
  });

  interface Client {
    address: string;
    cookies: Map<string, string>;
  }
  const client = (address: string): Client => ({ address, cookies: new Map() });
  const cookieHeader = (c: Client) => [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const keepCookies = (c: Client, res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      c.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  };
  /** The sign-in form's token for this client (its form cookie kept). */
  const formToken = async (c: Client): Promise<string> => {
    const res = await fetch(`${bases[0]}/sign-in`, { headers: { cookie: cookieHeader(c), 'x-forwarded-for': c.address } });
    keepCookies(c, res);
    return /name="_csrf" value="([^"]+)"/.exec(await res.text())?.[1] ?? '';
  };
  /** One sign-in sent to replica `n % 2`: its status and Retry-After. */
  const signIn = async (c: Client, csrf: string, email: string, password: string, n = 0) => {
    const res = await fetch(`${bases[n % 2]}/sign-in`, {
      method: 'POST',
      headers: { cookie: cookieHeader(c), 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': c.address },
      body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
      redirect: 'manual',
    });
    keepCookies(c, res);
    await res.arrayBuffer();
    return { status: res.status, retryAfter: Number(res.headers.get('retry-after') ?? 0) };
  };
  const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {});
  /** `count` wrong guesses for `email` from `c`, all sent at once, alternating between the replicas. */
  const burst = async (c: Client, email: string, count: number) => {
    const csrf = await formToken(c);
    return (await Promise.all(Array.from({ length: count }, (_, n) => signIn(c, csrf, email, `wrong guess ${n}`, n)))).map((r) => r.status);
  };

  it('checks only five of 40 wrong passwords sent together from one address; the rest get 429', async () => {
    expect(tally(await burst(client('203.0.113.10'), 'ann@example.com', 40))).toEqual({ 401: 5, 429: 35 });
  });

  it('refuses the right password sent after a burst of 300 wrong ones from the same address', async () => {
    const attacker = client('203.0.113.11');
    expect(tally(await burst(attacker, 'bob@example.com', 300))).toEqual({ 401: 5, 429: 295 });
    const last = await signIn(attacker, await formToken(attacker), 'bob@example.com', PASSWORD, 1);
    expect(last.status).toBe(429);
    expect(last.retryAfter).toBeGreaterThan(60);
  });

  it('lets the holder in while strangers guess their password from one address and from many', async () => {
    const holder = client('198.51.100.7');
    expect((await signIn(holder, await formToken(holder), 'cyd@example.com', PASSWORD)).status).toBe(303);
    await signIn(holder, await formToken(holder), 'cyd@example.com', 'the holder mistypes once');

    // One address, then 40 addresses with ten guesses each, all at once.
    expect(tally(await burst(client('203.0.113.12'), 'cyd@example.com', 20))).toEqual({ 401: 5, 429: 15 });
    const spread = (
      await Promise.all(Array.from({ length: 40 }, (_, i) => burst(client(`192.0.2.${i + 1}`), 'cyd@example.com', 10)))
    ).flat();
    const checked = tally(spread)[401] ?? 0;
    expect(checked).toBeLessThanOrEqual(10);
    expect(checked + (tally(spread)[429] ?? 0)).toBe(400);

    // The holder's own browser, known from an earlier sign-in, is not held back.
    expect((await signIn(holder, await formToken(holder), 'cyd@example.com', PASSWORD, 1)).status).toBe(303);
    // A browser the console has not seen is slowed, not refused for the whole window.
    const newDevice = client('198.51.100.7');
    const slowed = await signIn(newDevice, await formToken(newDevice), 'cyd@example.com', PASSWORD);
    if (slowed.status !== 303) {
      expect(slowed.status).toBe(429);
      expect(slowed.retryAfter).toBeLessThanOrEqual(30);
    }
  });
});
