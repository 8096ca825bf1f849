import { status } from '@grpc/grpc-js';
import { Client as PgClient } from 'pg';
import { authV1 } from '@gw/contracts';
import { createLogger, GrpcSecurity, grpcClient, unaryCall } from '@gw/service-kit';
import { createTestDatabase, TestDatabase, testTlsDir } from '@gw/testing';
import { AuthApp, startAuthApp } from '../src/auth-app';
import { loadConfig } from '../src/config';

const DEADLINE_MS = 5000;
const mtls = (identity: string): GrpcSecurity => ({ kind: 'mtls', dir: testTlsDir(identity), refreshMs: 60_000 });

/** auth-service's audit trail over mutual TLS: who is recorded (the console's holder, the operator), what, and the walk of the chain. */
describe('auth-service audit trail (gRPC over mutual TLS, Postgres)', () => {
  let db: TestDatabase;
  let app: AuthApp;
  let pg: PgClient;
  let ctl: authV1.AuthClient;
  let consoleAuth: authV1.AuthClient;

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
    ctl = grpcClient(authV1.AuthClient, `127.0.0.1:${app.port}`, mtls('ctl'), 'auth-service');
    consoleAuth = grpcClient(authV1.AuthClient, `127.0.0.1:${app.port}`, mtls('console'), 'auth-service');
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

  const newAccount = async () => (await unaryCall(ctl.createAccount.bind(ctl), { name: 'Audited' }, DEADLINE_MS)).account?.accountId ?? '';
  const entriesOf = async (accountId: string) =>
    (await unaryCall(consoleAuth.listAuditEntries.bind(consoleAuth), { accountId, limit: 50 }, DEADLINE_MS)).entries;
  const verify = async () => (await unaryCall(ctl.verifyAuditTrail.bind(ctl), {}, DEADLINE_MS)).check;

  it("records a holder's key created and revoked in the console, and the operator's changes with their reasons", async () => {
    const accountId = await newAccount();
    const holder = { holder: 'alice@example.com', reason: '' };
    const created = await unaryCall(consoleAuth.createKey.bind(consoleAuth), { accountId, name: 'laptop', note: holder }, DEADLINE_MS);
    const keyId = created.info?.id ?? '';
    await unaryCall(consoleAuth.revokeKey.bind(consoleAuth), { accountId, keyId, note: holder }, DEADLINE_MS);
    await unaryCall(ctl.suspendAccount.bind(ctl), { accountId, until: '', reason: 'unpaid invoice' }, DEADLINE_MS);
    await unaryCall(ctl.unsuspendAccount.bind(ctl), { accountId, note: { holder: '', reason: 'invoice paid' } }, DEADLINE_MS);
    await unaryCall(ctl.addModel.bind(ctl), { id: 'vendor-v4-audited', vision: false, note: { holder: '', reason: 'pilot' } }, DEADLINE_MS);
    await unaryCall(
      ctl.grantModel.bind(ctl),
      { accountId, modelId: 'vendor-v4-audited', note: { holder: '', reason: 'pilot' } },
      DEADLINE_MS,
    );
    // Granted again and scheduled twice: nothing changes the second time, and nothing more is recorded.
    await unaryCall(ctl.grantModel.bind(ctl), { accountId, modelId: 'vendor-v4-audited', note: undefined }, DEADLINE_MS);
    await unaryCall(ctl.scheduleAccountDeletion.bind(ctl), { accountId, note: { holder: '', reason: 'asked by holder' } }, DEADLINE_MS);
    await unaryCall(ctl.scheduleAccountDeletion.bind(ctl), { accountId, note: undefined }, DEADLINE_MS);

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
    expect(await verify()).toEqual({ entries: rows.length, ok: true });
  });

  it('believes a holder only from the console, and shows an account only its own entries', async () => {
    const [mine, other] = [await newAccount(), await newAccount()];
    await unaryCall(
      ctl.createKey.bind(ctl),
      { accountId: mine, name: '', note: { holder: 'mallory@example.com', reason: 'by hand' } },
      DEADLINE_MS,
    );
    await unaryCall(
      consoleAuth.createKey.bind(consoleAuth),
      { accountId: other, name: '', note: { holder: 'bob@example.com', reason: '' } },
      DEADLINE_MS,
    );
    expect((await entriesOf(mine)).map((e) => [e.action, e.actor, e.reason])).toEqual([['key-created', 'ctl', 'by hand']]);
    expect((await entriesOf(other)).map((e) => e.actor)).toEqual(['holder:bob@example.com']);
  });

  it('answers the walk only to the operator, and the entries only to the console', async () => {
    await expect(unaryCall(consoleAuth.verifyAuditTrail.bind(consoleAuth), {}, DEADLINE_MS)).rejects.toMatchObject({
      code: status.PERMISSION_DENIED,
    });
    await expect(unaryCall(ctl.listAuditEntries.bind(ctl), { accountId: 'acct_x', limit: 5 }, DEADLINE_MS)).rejects.toMatchObject({
      code: status.PERMISSION_DENIED,
    });
    await expect(
      unaryCall(consoleAuth.listAuditEntries.bind(consoleAuth), { accountId: 'acct_x', limit: 201 }, DEADLINE_MS),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
  });

  it('names an entry edited with SQL, then the entry after one deleted', async () => {
    const before = await verify();
    expect(before?.ok).toBe(true);
    await pg.query("UPDATE auth.audit_log SET actor = 'ctl' WHERE seq = 2");
    expect(await verify()).toEqual({
      entries: before?.entries,
      ok: false,
      firstBad: { seq: 2, problem: 'edited', detail: expect.any(String) },
    });
    await pg.query('DELETE FROM auth.audit_log WHERE seq = 2');
    expect(await verify()).toMatchObject({ ok: false, firstBad: { seq: 3, problem: 'missing' } });
  });
});
