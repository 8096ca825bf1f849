import { status } from '@grpc/grpc-js';
import { authV1, eventsV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, GrpcSecurity, openDatabase, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, eventually, TestDatabase, testTlsDir } from '@gw/testing';
import { AuthApp, startAuthApp } from '../src/auth-app';
import { accountEvents } from './account-events';
import { loadConfig } from '../src/config';

const DEADLINE_MS = 5000;
const mtls = (identity: string): GrpcSecurity => ({ kind: 'mtls', dir: testTlsDir(identity), refreshMs: 60_000 });
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };
const { HolderEventKind } = eventsV1;

/**
 * auth-service's holder events over mutual TLS, on Postgres: keys created and revoked, a suspension
 * and its end, each in the transaction that makes the change (none for a change rolled back or one
 * that changes nothing), streamed to the notifier and to no one else.
 */
describe('auth-service holder events (gRPC over mutual TLS, Postgres)', () => {
  let testDb: TestDatabase;
  let db: Database;
  let app: AuthApp;
  let ctl: RpcClient<authV1.AuthClient, authV1.AuthService>;
  let consoleAuth: RpcClient<authV1.AuthClient, authV1.AuthService>;
  let notifier: RpcClient<authV1.AuthClient, authV1.AuthService>;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const config = loadConfig({
      AUTH_METRICS_PORT: '0',
      AUTH_PORT: '0',
      BIND_HOST: '127.0.0.1',
      TLS_DIR: testTlsDir('auth-service'),
      DATABASE_URL: testDb.url,
      SHUTDOWN_GRACE_MS: '1000',
    });
    app = await startAuthApp(
      config,
      createLogger('auth-service', 'error', () => undefined),
    );
    const client = (identity: string) => rpcClient(authV1.AuthClient, `127.0.0.1:${app.port}`, mtls(identity), 'auth-service', SETTINGS);
    [ctl, consoleAuth, notifier] = [client('ctl'), client('console'), client('notifier')];
    db = await openDatabase(testDb.url, '');
    // A fault the test can ask for: an audit entry with this reason fails its transaction, at its last statement.
    await db.query(`
      CREATE FUNCTION public.fail_marked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'marked to fail'; END $$;
      CREATE TRIGGER fail_marked BEFORE INSERT ON auth.audit_log FOR EACH ROW
        WHEN (NEW.reason = 'fail here') EXECUTE FUNCTION public.fail_marked();`);
  }, 60_000);

  afterAll(async () => {
    for (const c of [ctl, consoleAuth, notifier]) c?.close();
    await db?.close();
    await app?.stop();
    await testDb?.drop();
  });

  const newAccount = async () => (await ctl.createAccount({ name: 'Told' })).account?.accountId ?? '';
  const eventsOf = (accountId: string) => accountEvents(db, accountId);

  it('records a key created and revoked with its id, prefix and name, never the key', async () => {
    const accountId = await newAccount();
    const created = await consoleAuth.createKey({ accountId, name: 'laptop', note: { holder: 'alice@example.com', reason: '' } });
    const keyId = created.info?.id ?? '';
    const prefix = created.info?.prefix ?? '';
    await ctl.revokeKey({ accountId: '', keyId, note: { holder: '', reason: 'rotated' } });
    expect(await eventsOf(accountId)).toEqual([
      { kind: 'key-created', details: { keyId, prefix, name: 'laptop' } },
      { kind: 'key-revoked', details: { keyId, prefix, name: 'laptop' } },
    ]);
    const kept = JSON.stringify(await eventsOf(accountId));
    expect(kept).not.toContain(created.key);
  });

  it('records a suspension with its terms and its end, and nothing for lifting one that is not there', async () => {
    const accountId = await newAccount();
    await ctl.unsuspendAccount({ accountId, note: { holder: '', reason: '' } });
    await ctl.suspendAccount({ accountId, until: '2031-01-02T03:04:05.000Z', reason: 'unpaid invoice' });
    await ctl.unsuspendAccount({ accountId, note: { holder: '', reason: '' } });
    await ctl.unsuspendAccount({ accountId, note: { holder: '', reason: '' } });
    expect(await eventsOf(accountId)).toEqual([
      { kind: 'account-suspended', details: { until: '2031-01-02T03:04:05.000Z', reason: 'unpaid invoice' } },
      { kind: 'account-unsuspended', details: {} },
    ]);
  });

  it('records nothing for a change rolled back', async () => {
    const accountId = await newAccount();
    const created = await ctl.createKey({ accountId, name: 'kept', note: { holder: '', reason: '' } });
    await expect(
      ctl.revokeKey({ accountId: '', keyId: created.info?.id ?? '', note: { holder: '', reason: 'fail here' } }),
    ).rejects.toThrow();
    expect((await eventsOf(accountId)).map((e) => e.kind)).toEqual(['key-created']);
    expect((await ctl.listKeys({ accountId })).keys).toHaveLength(1);
  });

  it('streams the events to the notifier from a cursor, and to no other caller', async () => {
    const accountId = await newAccount();
    const received: eventsV1.HolderEvent[] = [];
    const stream = notifier.streams.watchHolderEvents({ after: '' });
    stream.on('data', (m: authV1.WatchHolderEventsResponse) => received.push(...m.events.filter((e) => e.accountId === accountId)));
    stream.on('error', () => undefined);
    await ctl.suspendAccount({ accountId, until: '', reason: 'checking' });
    await eventually(
      () => received.length,
      (n) => n === 1,
      { what: 'the suspension, streamed' },
    );
    expect(received[0]).toMatchObject({ kind: HolderEventKind.HOLDER_EVENT_KIND_ACCOUNT_SUSPENDED, accountId });
    expect(JSON.parse(received[0].detailsJson)).toEqual({ until: null, reason: 'checking' });
    stream.cancel();

    const refused = consoleAuth.streams.watchHolderEvents({ after: '' });
    const code = await new Promise((resolve) => refused.on('error', (err: { code: number }) => resolve(err.code)));
    expect(code).toBe(status.PERMISSION_DENIED);
  });
});
