import { status } from '@grpc/grpc-js';
import { Client as PgClient } from 'pg';
import { authV1, healthV1 } from '@gw/contracts';
import { clientChain, createLogger, GrpcSecurity, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, eventually, TestDatabase } from '@gw/testing';
import { AuthApp, startAuthApp } from '../src/auth-app';
import { loadConfig } from '../src/config';
import { sha256Hex } from '../src/domain/api-key';

const DEADLINE_MS = 5000;
const INSECURE: GrpcSecurity = { kind: 'insecure' };
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };

describe('auth.v1.Auth over gRPC on Postgres', () => {
  let db: TestDatabase;
  let app: AuthApp;
  let auth: RpcClient<authV1.AuthClient, authV1.AuthService>;
  let health: RpcClient<healthV1.HealthClient, healthV1.HealthService>;

  const call = {
    createAccount: (name: string) => auth.createAccount({ name }),
    getAccount: (accountId: string) => auth.getAccount({ accountId }),
    createKey: (accountId: string, name = '') => auth.createKey({ accountId, name }),
    listKeys: (accountId: string) => auth.listKeys({ accountId }),
    revokeKey: (keyId: string, accountId = '') => auth.revokeKey({ keyId, accountId }),
    authenticate: (key: string) => auth.authenticate({ keySha256: sha256Hex(key) }),
    listModels: (accountId: string) => auth.listModels({ accountId }),
    suspend: (accountId: string, until = '', reason = '') => auth.suspendAccount({ accountId, until, reason }),
    unsuspend: (accountId: string) => auth.unsuspendAccount({ accountId }),
    scheduleDeletion: (accountId: string) => auth.scheduleAccountDeletion({ accountId }),
    grantModel: (accountId: string, modelId: string) => auth.grantModel({ accountId, modelId }),
    addModel: (id: string, vision: boolean) => auth.addModel({ id, vision }),
    getModel: (id: string) => auth.getModel({ id }),
  };
  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (err: { code: number }) => err.code,
    );

  beforeAll(async () => {
    db = await createTestDatabase();
    const config = loadConfig({
      AUTH_METRICS_PORT: '0',
      AUTH_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      DATABASE_URL: db.url,
      LAST_USED_FLUSH_MS: '50',
      SHUTDOWN_GRACE_MS: '1000',
    });
    app = await startAuthApp(
      config,
      createLogger('auth-service', 'error', () => undefined),
    );
    auth = rpcClient(authV1.AuthClient, `127.0.0.1:${app.port}`, INSECURE, 'auth-service', SETTINGS);
    health = rpcClient(healthV1.HealthClient, `127.0.0.1:${app.port}`, INSECURE, 'auth-service', SETTINGS);
  });

  afterAll(async () => {
    auth?.close();
    health?.close();
    await app?.stop();
    await db?.drop();
  });

  it('reports SERVING for auth.v1.Auth and for the server', async () => {
    for (const service of ['', 'auth.v1.Auth']) {
      expect((await health.check({ service })).status).toBe(healthV1.HealthCheckResponse_ServingStatus.SERVING);
    }
    expect(await codeOf(health.check({ service: 'nope.v1.Nope' }))).toBe(status.NOT_FOUND);
  });

  it('creates an account and reads it back, with a default name when none is given', async () => {
    const { account } = await call.createAccount('');
    expect(account).toMatchObject({
      accountId: expect.stringMatching(/^acct_/),
      name: 'Account',
      grantedModels: [],
      deletionScheduled: false,
    });
    expect(account?.suspension).toBeUndefined();
    expect((await call.getAccount(account?.accountId ?? '')).account).toEqual(account);
    expect(await codeOf(call.getAccount('acct_missing'))).toBe(status.NOT_FOUND);
  });

  it('refuses an account name over 64 characters or with control characters, creating nothing', async () => {
    const pg = new PgClient({ connectionString: db.url });
    await pg.connect();
    const accounts = async () => (await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM auth.accounts')).rows[0].n;
    try {
      const before = await accounts();
      for (const name of ['x'.repeat(65), 'two\nlines', 'bell\u0007', 'esc\u001b[2J']) {
        await expect(call.createAccount(name)).rejects.toMatchObject({
          code: status.INVALID_ARGUMENT,
          details: expect.stringMatching(/account name/),
        });
      }
      expect(await accounts()).toBe(before);
    } finally {
      await pg.end();
    }
    expect((await call.createAccount('y'.repeat(64))).account?.name).toBe('y'.repeat(64));
  });

  it('creates a key shown once, lists it by prefix, and finds its owner by SHA-256', async () => {
    const accountId = (await call.createAccount('Keys')).account?.accountId ?? '';
    const created = await call.createKey(accountId, 'ci');
    expect(created.key).toMatch(/^sk-shfr-[0-9a-f]{40}$/);
    expect(created.info).toMatchObject({ prefix: created.key.slice(0, 12), name: 'ci', lastUsed: '' });

    const unnamed = await call.createKey(accountId);
    expect(unnamed.info?.name).toBeTruthy();
    expect((await call.listKeys(accountId)).keys.map((k) => k.id)).toEqual([created.info?.id, unnamed.info?.id]);

    const owner = await call.authenticate(created.key);
    expect(owner).toMatchObject({ found: true, accountId, keyId: created.info?.id });
    expect(owner.models.map((m) => [m.id, m.vision])).toEqual([
      ['vendor-v4-flash', true],
      ['vendor-v4-pro', false],
    ]);
    expect(await call.authenticate(`sk-shfr-${'f'.repeat(40)}`)).toMatchObject({ found: false });
  });

  it('refuses a key name over 64 characters or with a control character, and a key for an unknown account', async () => {
    const accountId = (await call.createAccount('Names')).account?.accountId ?? '';
    expect((await call.createKey(accountId, 'n'.repeat(64))).info?.name).toHaveLength(64);
    expect((await call.createKey(accountId, '🔑'.repeat(33))).info?.name).toBe('🔑'.repeat(33));
    expect(await codeOf(call.createKey(accountId, 'n'.repeat(65)))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(call.createKey(accountId, 'nul\u0000name'))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(call.createKey('acct_missing'))).toBe(status.NOT_FOUND);
  });

  it('revokes a key for good: the next lookup finds nothing and the list no longer shows it', async () => {
    const accountId = (await call.createAccount('Revoke')).account?.accountId ?? '';
    const { key, info } = await call.createKey(accountId);
    expect((await call.authenticate(key)).found).toBe(true);
    expect(await call.revokeKey(info?.id ?? '')).toEqual({ keyId: info?.id });
    expect((await call.authenticate(key)).found).toBe(false);
    expect((await call.listKeys(accountId)).keys).toEqual([]);
    expect(await codeOf(call.revokeKey(info?.id ?? ''))).toBe(status.NOT_FOUND);
  });

  it("revokes, when told the account, only a key of that account: another account's key is NOT_FOUND and stays active", async () => {
    const mine = (await call.createAccount('Mine')).account?.accountId ?? '';
    const theirs = (await call.createAccount('Theirs')).account?.accountId ?? '';
    const { key, info } = await call.createKey(theirs);
    expect(await codeOf(call.revokeKey(info?.id ?? '', mine))).toBe(status.NOT_FOUND);
    expect((await call.authenticate(key)).found).toBe(true);
    expect(await call.revokeKey(info?.id ?? '', theirs)).toEqual({ keyId: info?.id });
    expect((await call.authenticate(key)).found).toBe(false);
  });

  it('records last use after an accepted lookup, off the request path', async () => {
    const accountId = (await call.createAccount('Used')).account?.accountId ?? '';
    const { key } = await call.createKey(accountId);
    const before = Date.now();
    await call.authenticate(key);
    const lastUsed = await eventually(async () => (await call.listKeys(accountId)).keys[0].lastUsed);
    expect(new Date(lastUsed).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('lists the public models for a caller without an account', async () => {
    expect((await call.listModels('')).models.map((m) => m.id)).toEqual(['vendor-v4-flash', 'vendor-v4-pro']);
  });

  it('suspends with or without an end, reports it on lookup, and lifts it', async () => {
    const accountId = (await call.createAccount('Suspended')).account?.accountId ?? '';
    const { key } = await call.createKey(accountId);
    const until = new Date(Date.now() + 3_600_000).toISOString();
    expect((await call.suspend(accountId, until, 'fraud check')).account?.suspension).toEqual({
      until,
      reason: 'fraud check',
      whatsapp: '+218910000000',
    });
    expect((await call.authenticate(key)).suspension).toEqual({ until, reason: 'fraud check', whatsapp: '+218910000000' });
    expect(await codeOf(call.createKey(accountId))).toBe(status.FAILED_PRECONDITION);
    expect((await call.unsuspend(accountId)).account?.suspension).toBeUndefined();
    expect((await call.authenticate(key)).suspension).toBeUndefined();
    expect(await codeOf(call.suspend(accountId, 'next tuesday'))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(call.suspend('acct_missing'))).toBe(status.NOT_FOUND);
  });

  it('treats a suspension whose end has passed as lifted', async () => {
    const accountId = (await call.createAccount('Lapsed')).account?.accountId ?? '';
    const { key } = await call.createKey(accountId);
    await call.suspend(accountId, new Date(Date.now() - 1000).toISOString());
    expect((await call.authenticate(key)).suspension).toBeUndefined();
    expect((await call.createKey(accountId)).key).toMatch(/^sk-shfr-/);
  });

  it('refuses keys once an account is scheduled for deletion', async () => {
    const accountId = (await call.createAccount('Leaving')).account?.accountId ?? '';
    expect((await call.scheduleDeletion(accountId)).account?.deletionScheduled).toBe(true);
    expect(await codeOf(call.createKey(accountId))).toBe(status.FAILED_PRECONDITION);
  });

  it('adds models once and grants them only to the accounts named', async () => {
    const [a, b] = await Promise.all([call.createAccount('A'), call.createAccount('B')]);
    const id = `grpc-model-${process.pid}`;
    expect((await call.addModel(id, false)).model).toMatchObject({ id, vision: false, public: false });
    expect(await codeOf(call.addModel(id, true))).toBe(status.ALREADY_EXISTS);
    expect(await codeOf(call.addModel('has space', true))).toBe(status.INVALID_ARGUMENT);
    expect((await call.grantModel(a.account?.accountId ?? '', id)).account?.grantedModels).toEqual([id]);
    expect(await codeOf(call.grantModel(a.account?.accountId ?? '', 'no-such-model'))).toBe(status.NOT_FOUND);
    expect((await call.listModels(a.account?.accountId ?? '')).models.map((m) => m.id)).toContain(id);
    expect((await call.listModels(b.account?.accountId ?? '')).models.map((m) => m.id)).not.toContain(id);
    expect((await call.listModels('')).models.map((m) => m.id)).not.toContain(id);
  });

  it('reads any model of the catalogue, public or only granted, and answers NOT_FOUND for an unknown id', async () => {
    expect((await call.getModel('vendor-v4-flash')).model).toMatchObject({ id: 'vendor-v4-flash', vision: true, public: true });
    await call.addModel('vendor-private-read', false);
    expect((await call.getModel('vendor-private-read')).model).toMatchObject({ id: 'vendor-private-read', vision: false, public: false });
    expect(await codeOf(call.getModel('vendor-v4-flash '))).toBe(status.NOT_FOUND);
    expect(await codeOf(call.getModel('no-such-model'))).toBe(status.NOT_FOUND);
  });

  it('keeps only the SHA-256 and the prefix of a key in the database', async () => {
    const accountId = (await call.createAccount('Hash only')).account?.accountId ?? '';
    const { key } = await call.createKey(accountId);
    const pg = new PgClient({ connectionString: db.url });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ dump: string }>("SELECT string_agg(t::text, ' ') AS dump FROM auth.api_keys t");
      expect(rows[0].dump).toContain(sha256Hex(key));
      expect(rows[0].dump).toContain(key.slice(0, 12));
      expect(rows[0].dump).not.toContain(key.slice(12));
    } finally {
      await pg.end();
    }
  });
});
