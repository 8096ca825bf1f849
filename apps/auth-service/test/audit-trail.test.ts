import { status } from '@grpc/grpc-js';
import { Client as PgClient } from 'pg';
import { authV1 } from '@gw/contracts';
import { clientChain, createLogger, GrpcSecurity, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, TestDatabase, testTlsDir } from '@gw/testing';
import { AuthApp, startAuthApp } from '../src/auth-app';
import { loadConfig } from '../src/config';

const DEADLINE_MS = 5000;
const mtls = (identity: string): GrpcSecurity => ({ kind: 'mtls', dir: testTlsDir(identity), refreshMs: 60_000 });
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };

/** auth-service's audit trail over mutual TLS: who is recorded (the console's holder, the operator), what, and the walk of the chain. */
describe('auth-service audit trail (gRPC over mutual TLS, Postgres)', () => {
  let db: TestDatabase;
  let app: AuthApp;
  let pg: PgClient;
  let ctl: RpcClient<authV1.AuthClient, authV1.AuthService>;
  let consoleAuth: RpcClient<authV1.AuthClient, authV1.AuthService>;

  beforeAll(async () => {
    db = await createTestDatabase();
    const config = loadConfig({
      AUTH_METRICS_PORT: '0',
      AUTH_PORT: '0',
      BIND_HOST: '127.0.0.1',
      TLS_DIR: testTlsDir('auth-service'),
      DATABASE_URL: db.url,
      SHUTDOWN_GRACE_MS: '1000',
    });
    app = await startAuthApp(
      config,
      createLogger('auth-service', 'error', () => undefined),
    );
    ctl = rpcClient(authV1.AuthClient, `127.0.0.1:${app.port}`, mtls('ctl'), 'auth-service', SETTINGS);
    consoleAuth = rpcClient(authV1.AuthClient, `127.0.0.1:${app.port}`, mtls('console'), 'auth-service', SETTINGS);
    pg = new PgClient({ connectionString: db.url });
    await pg.connect();
    // The test certificates are made on first use: RSA keys take seconds.
  }, 60_000);

  afterAll(async () => {
    ctl?.close();
    consoleAuth?.close();
    await pg?.end();
    await app?.stop();
    await db?.drop();
  });

  const newAccount = async () => (await ctl.createAccount({ name: 'Audited' })).account?.accountId ?? '';
  const entriesOf = async (accountId: string) => (await consoleAuth.listAuditEntries({ accountId, limit: 50 })).entries;
  const verify = async () => (await ctl.verifyAuditTrail({})).check;

  it("records a holder's key created and revoked in the console, and the operator's changes with their reasons", async () => {
    const accountId = await newAccount();
    const holder = { holder: 'alice@example.com', reason: '' };
    const created = await consoleAuth.createKey({ accountId, name: 'laptop', note: holder });
    const keyId = created.info?.id ?? '';
    await consoleAuth.revokeKey({ accountId, keyId, note: holder });
    await ctl.suspendAccount({ accountId, until: '', reason: 'unpaid invoice' });
    await ctl.unsuspendAccount({ accountId, note: { holder: '', reason: 'invoice paid' } });
    await ctl.addModel({ id: 'vendor-v4-audited', vision: false, note: { holder: '', reason: 'pilot' } });
    await ctl.grantModel({ accountId, modelId: 'vendor-v4-audited', note: { holder: '', reason: 'pilot' } });
    // Granted again and scheduled twice: nothing changes the second time, and nothing more is recorded.
    await ctl.grantModel({ accountId, modelId: 'vendor-v4-audited', note: undefined });
    await ctl.scheduleAccountDeletion({ accountId, note: { holder: '', reason: 'asked by holder' } });
    await ctl.scheduleAccountDeletion({ accountId, note: undefined });

    const entries = await entriesOf(accountId);
    expect(entries.map((e) => [e.action, e.actor, e.reason])).toEqual([
      ['deletion-scheduled', 'ctl', 'asked by holder'],
      ['model-granted', 'ctl', 'pilot'],
      ['account-unsuspended', 'ctl', 'invoice paid'],
      ['account-suspended', 'ctl', 'unpaid invoice'],
      ['key-revoked', 'holder:alice@example.com', ''],
      ['key-created', 'holder:alice@example.com', ''],
    ]);
    expect(JSON.parse(entries[5].detailsJson)).toEqual({ keyId, prefix: created.key.slice(0, 12), name: 'laptop' });
    expect(entries.every((e) => e.accountId === accountId)).toBe(true);

    // No key material past the 12-character prefix, anywhere in the trail.
    const { rows } = await pg.query<{ row: string }>('SELECT a::text AS row FROM auth.audit_log a');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.row.includes(created.key) || r.row.includes(created.key.slice(0, 13)))).toBe(false);
    expect(await verify()).toMatchObject({ entries: rows.length, ok: true });
  });

  it('believes a holder only from the console, and shows an account only its own entries', async () => {
    const [mine, other] = [await newAccount(), await newAccount()];
    await ctl.createKey({ accountId: mine, name: '', note: { holder: 'mallory@example.com', reason: 'by hand' } });
    await consoleAuth.createKey({ accountId: other, name: '', note: { holder: 'bob@example.com', reason: '' } });
    expect((await entriesOf(mine)).map((e) => [e.action, e.actor, e.reason])).toEqual([['key-created', 'ctl', 'by hand']]);
    expect((await entriesOf(other)).map((e) => e.actor)).toEqual(['holder:bob@example.com']);
  });

  it('answers the walk only to the operator, and the entries only to the console', async () => {
    await expect(consoleAuth.verifyAuditTrail({})).rejects.toMatchObject({
      code: status.PERMISSION_DENIED,
    });
    await expect(ctl.listAuditEntries({ accountId: 'acct_x', limit: 5 })).rejects.toMatchObject({
      code: status.PERMISSION_DENIED,
    });
    await expect(consoleAuth.listAuditEntries({ accountId: 'acct_x', limit: 201 })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
  });

  it('names an entry edited with SQL, then the entry after one deleted', async () => {
    const before = await verify();
    expect(before?.ok).toBe(true);
    await pg.query("UPDATE auth.audit_log SET actor = 'ctl' WHERE seq = 2");
    expect(await verify()).toMatchObject({
      entries: before?.entries,
      ok: false,
      firstBad: { seq: 2, problem: 'edited', detail: expect.any(String) },
    });
    await pg.query('DELETE FROM auth.audit_log WHERE seq = 2');
    expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 3, problem: 'missing' } });
  });
});
