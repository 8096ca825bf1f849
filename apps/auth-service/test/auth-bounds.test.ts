import { ClientDuplexStream, ServiceError, status } from '@grpc/grpc-js';
import { MAX_ID_LENGTH, MAX_KEY_USES_PER_CALL, MAX_MODEL_ID_LENGTH } from '@gw/bounds';
import { authV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, openDatabase, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, eventually, TestDatabase } from '@gw/testing';
import { AuthApp, startAuthApp } from '../src/auth-app';
import { loadConfig } from '../src/config';
import { sha256Hex } from '../src/domain/api-key';
import { MAX_REASON_LENGTH } from '../src/domain/request-fields';

const DEADLINE_MS = 5000;
const id = (length: number, fill = 'i') => fill.repeat(length);
const invalid = { code: status.INVALID_ARGUMENT };

/**
 * Every id, text, count and time auth.v1 takes has a bound: just past it the call is refused with
 * INVALID_ARGUMENT and nothing in Postgres changes; at it, it is taken (an unknown id at its
 * bound is NOT_FOUND, an answer about the id, not about its shape).
 */
describe('auth.v1.Auth over gRPC: bounds of ids, texts, counts and times', () => {
  let testDb: TestDatabase;
  let db: Database;
  let app: AuthApp;
  let auth: RpcClient<authV1.AuthClient, authV1.AuthService>;

  const createAccount = async () => (await auth.createAccount({ name: 'Bounds' })).account?.accountId ?? '';
  /** Everything auth keeps: accounts, keys, models and grants. */
  const state = async () =>
    (
      await db.query(`SELECT
        (SELECT json_agg(a ORDER BY id) FROM auth.accounts a) AS accounts,
        (SELECT json_agg(k ORDER BY id) FROM auth.api_keys k) AS keys,
        (SELECT json_agg(m ORDER BY id) FROM auth.models m) AS models,
        (SELECT json_agg(g ORDER BY account_id, model_id) FROM auth.account_models g) AS grants`)
    ).rows[0];
  /** The call is refused with INVALID_ARGUMENT, and auth's state is as it was. */
  const refused = async (work: () => Promise<unknown>) => {
    const before = await state();
    await expect(work()).rejects.toMatchObject(invalid);
    expect(await state()).toEqual(before);
  };

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const config = loadConfig({
      AUTH_METRICS_PORT: '0',
      AUTH_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      DATABASE_URL: testDb.url,
      LAST_USED_FLUSH_MS: '50',
      SHUTDOWN_GRACE_MS: '1000',
    });
    app = await startAuthApp(
      config,
      createLogger('auth-service', 'error', () => undefined),
    );
    auth = rpcClient(authV1.AuthClient, `127.0.0.1:${app.port}`, { kind: 'insecure' }, 'auth-service', {
      timeoutMs: DEADLINE_MS,
      chain: clientChain(),
    });
    db = await openDatabase(testDb.url, '');
  });

  afterAll(async () => {
    auth?.close();
    await db?.close();
    await app?.stop();
    await testDb?.drop();
  });

  it('account ids up to 200 characters in every method that takes one', async () => {
    const tooLong = id(MAX_ID_LENGTH + 1);
    const atBound = id(MAX_ID_LENGTH);
    await refused(() => auth.getAccount({ accountId: tooLong }));
    await refused(() => auth.createKey({ accountId: tooLong, name: '' }));
    await refused(() => auth.listKeys({ accountId: tooLong }));
    await refused(() => auth.listModels({ accountId: tooLong }));
    await refused(() => auth.suspendAccount({ accountId: tooLong, until: '', reason: '' }));
    await refused(() => auth.unsuspendAccount({ accountId: tooLong }));
    await refused(() => auth.scheduleAccountDeletion({ accountId: tooLong }));
    await refused(() => auth.grantModel({ accountId: tooLong, modelId: 'vendor-v4-flash' }));
    await refused(() => auth.getAccount({ accountId: 'acct_\u0000' }));
    for (const work of [
      () => auth.getAccount({ accountId: atBound }),
      () => auth.createKey({ accountId: atBound, name: '' }),
      () => auth.listKeys({ accountId: atBound }),
      () => auth.suspendAccount({ accountId: atBound, until: '', reason: '' }),
      () => auth.unsuspendAccount({ accountId: atBound }),
      () => auth.scheduleAccountDeletion({ accountId: atBound }),
      () => auth.grantModel({ accountId: atBound, modelId: 'vendor-v4-flash' }),
    ]) {
      await expect(work()).rejects.toMatchObject({ code: status.NOT_FOUND });
    }
    expect(await auth.listModels({ accountId: atBound })).toMatchObject({ models: expect.any(Array) });
  });

  it('key ids up to 200 characters, the key digest 64 hex digits', async () => {
    const accountId = await createAccount();
    await refused(() => auth.revokeKey({ keyId: id(MAX_ID_LENGTH + 1), accountId: '' }));
    await refused(() => auth.revokeKey({ keyId: 'key_1', accountId: id(MAX_ID_LENGTH + 1) }));
    await expect(auth.revokeKey({ keyId: id(MAX_ID_LENGTH), accountId })).rejects.toMatchObject({ code: status.NOT_FOUND });
    for (const keySha256 of ['', 'f'.repeat(65), 'F'.repeat(64), 'x'.repeat(64), 'f'.repeat(10_000)])
      await refused(() => auth.authenticate({ keySha256 }));
    expect(await auth.authenticate({ keySha256: sha256Hex('sk-shfr-unknown') })).toMatchObject({ found: false });
  });

  it('model ids up to 128 characters', async () => {
    const accountId = await createAccount();
    await refused(() => auth.addModel({ id: id(MAX_MODEL_ID_LENGTH + 1, 'm'), vision: false }));
    await refused(() => auth.getModel({ id: id(MAX_MODEL_ID_LENGTH + 1, 'm') }));
    await refused(() => auth.grantModel({ accountId, modelId: id(MAX_MODEL_ID_LENGTH + 1, 'm') }));
    expect(await auth.addModel({ id: id(MAX_MODEL_ID_LENGTH, 'm'), vision: false })).toMatchObject({
      model: { id: id(MAX_MODEL_ID_LENGTH, 'm') },
    });
    expect(await auth.getModel({ id: id(MAX_MODEL_ID_LENGTH, 'm') })).toMatchObject({ model: { public: false } });
    expect(await auth.grantModel({ accountId, modelId: id(MAX_MODEL_ID_LENGTH, 'm') })).toMatchObject({
      account: { grantedModels: [id(MAX_MODEL_ID_LENGTH, 'm')] },
    });
  });

  it('a suspension: until a time from 1970 to the end of 9999, a reason of at most 500 characters without NUL', async () => {
    const accountId = await createAccount();
    const suspend = (until: string, reason = '') => auth.suspendAccount({ accountId, until, reason });
    for (const until of [
      '-100000-01-01T00:00:00Z',
      '+010000-01-01T00:00:00Z',
      '1969-12-31T23:59:59.999Z',
      `2030-01-01T00:00:00Z${' '.repeat(60)}`,
      'soon',
    ])
      await refused(() => suspend(until));
    await refused(() => suspend('', 'r'.repeat(MAX_REASON_LENGTH + 1)));
    await refused(() => suspend('', 'nul\u0000'));
    expect(await suspend('9999-12-31T23:59:59.999Z', '🛑'.repeat(MAX_REASON_LENGTH))).toMatchObject({
      account: { suspension: { until: '9999-12-31T23:59:59.999Z', reason: '🛑'.repeat(MAX_REASON_LENGTH) } },
    });
    expect(await suspend('1970-01-01T00:00:00.000Z')).toMatchObject({ account: { suspension: undefined } });
  });

  it('RecordKeyUses: at most 1,000 uses, each of a key id of at most 200 characters at a time from 1970 to the end of 9999', async () => {
    const accountId = await createAccount();
    const { info } = await auth.createKey({ accountId, name: '' });
    const keyId = info?.id ?? '';
    const record = (uses: authV1.KeyUse[]) => auth.recordKeyUses({ uses });
    const lastUsed = async () => (await db.query('SELECT last_used_at FROM auth.api_keys WHERE id = $1', [keyId])).rows[0].last_used_at;
    for (const uses of [
      [{ keyId, usedAtUnixMs: 8.64e15 }],
      [{ keyId, usedAtUnixMs: -1 }],
      [{ keyId, usedAtUnixMs: 2 ** 62 }],
      [{ keyId: id(MAX_ID_LENGTH + 1), usedAtUnixMs: 0 }],
      Array.from({ length: MAX_KEY_USES_PER_CALL + 1 }, (_, n) => ({ keyId: `key_${n}`, usedAtUnixMs: 0 })),
    ]) {
      await refused(() => record(uses));
    }
    const used = Date.UTC(2030, 0, 1);
    const atBounds = [
      { keyId, usedAtUnixMs: used },
      ...Array.from({ length: MAX_KEY_USES_PER_CALL - 1 }, (_, n) => ({ keyId: `${id(MAX_ID_LENGTH - 10)}_${n}`, usedAtUnixMs: 0 })),
    ];
    expect(await record(atBounds)).toEqual({});
    expect(await eventually(lastUsed, (last) => last !== null, { timeoutMs: 5000, intervalMs: 20 })).toEqual(new Date(used));
  });

  it('WatchIdentityChanges: an acknowledgement of a change never sent ends the stream with INVALID_ARGUMENT', async () => {
    const stream: ClientDuplexStream<authV1.WatchIdentityChangesRequest, authV1.WatchIdentityChangesResponse> =
      auth.streams.watchIdentityChanges();
    const ended = new Promise<ServiceError>((resolve) => stream.on('error', resolve));
    stream.on('data', () => undefined);
    stream.write({ appliedSequence: 2 ** 52, sync: 0 });
    expect(await ended).toMatchObject(invalid);
  });
});
