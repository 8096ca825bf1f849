import { Client as PgClient } from 'pg';
import OpenAI from 'openai';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';
import { eventually } from '@gw/testing';

interface ErrorBody {
  error: { code: string; type: string; param: string | null; suspension?: unknown };
}

const CHAT = { model: 'vendor-v4-flash', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('authentication surface (docs/api.md: the models and usage endpoints, authentication), two edges and two auth-services', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  const shownKeys: string[] = [];

  beforeAll(async () => {
    gw = await startGateway({ SUSPENSION_WHATSAPP: '+218 91 234 5678', LAST_USED_FLUSH_MS: '50' }, { replicas: { edge: 2, auth: 2 } });
    stack = gw.stack;
  }, 90_000);

  afterAll(async () => {
    await gw?.stop();
  }, 60_000);

  async function ctlOk<T>(...args: string[]): Promise<T> {
    const { json, exitCode } = await stack.ctl(...args);
    if (exitCode !== 0) throw new Error(`ctl ${args.join(' ')} failed: ${JSON.stringify(json)}`);
    return json as T;
  }

  async function account(balance = '5'): Promise<{ accountId: string; key: string; keyId: string }> {
    const { accountId } = await ctlOk<{ accountId: string }>('account', 'create', '--balance', balance);
    const created = await ctlOk<{ id: string; key: string }>('key', 'create', '--account', accountId);
    shownKeys.push(created.key);
    return { accountId, key: created.key, keyId: created.id };
  }

  function post(authorization: string | undefined, base = stack.baseUrl, extra: Record<string, string> = {}) {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
    if (authorization !== undefined) headers.authorization = authorization;
    return fetch(`${base}/chat/completions`, { method: 'POST', headers, body: JSON.stringify(CHAT) });
  }

  async function errorOf(res: Response): Promise<ErrorBody['error'] & { status: number }> {
    return { status: res.status, ...((await res.json()) as ErrorBody).error };
  }

  describe('401 MISSING_API_KEY (rule 6) and the Authorization header (rules 2-4)', () => {
    let key: string;
    beforeAll(async () => {
      ({ key } = await account());
    });

    it.each([
      ['no header', () => undefined],
      ['another scheme', () => `Basic ${key}`],
      ['an empty key', () => 'Bearer '],
      ['a space inside the key', () => `Bearer ${key.slice(0, 20)} ${key.slice(20)}`],
      ['the key in quotes with a space', () => `Bearer "${key}" x`],
    ])('%s', async (_, header) => {
      expect(await errorOf(await post(header()))).toMatchObject({
        status: 401,
        code: 'MISSING_API_KEY',
        type: 'authentication_error',
        param: null,
      });
    });

    it('never reads x-api-key', async () => {
      expect(await errorOf(await post(undefined, stack.baseUrl, { 'x-api-key': key }))).toMatchObject({
        status: 401,
        code: 'MISSING_API_KEY',
      });
    });

    it.each([['Bearer'], ['bearer'], ['BEARER'], ['bEaReR']])('accepts the scheme written %s, with one or more spaces', async (scheme) => {
      expect((await post(`${scheme} ${key}`)).status).toBe(200);
      expect((await post(`${scheme}   ${key}`)).status).toBe(200);
    });
  });

  describe('401 INVALID_API_KEY (rule 7)', () => {
    it.each([
      ['an unknown key', `sk-shfr-${'a'.repeat(40)}`],
      ['a key not starting with sk-', `pk-shfr-${'a'.repeat(40)}`],
      ['a short key', 'sk-nope'],
    ])('%s', async (_, key) => {
      expect(await errorOf(await post(`Bearer ${key}`))).toMatchObject({
        status: 401,
        code: 'INVALID_API_KEY',
        type: 'authentication_error',
      });
    });

    it('a revoked key, on the very next request through either edge and either auth-service', async () => {
      const { key, keyId } = await account();
      for (const base of stack.baseUrls) expect((await post(`Bearer ${key}`, base)).status).toBe(200);
      await ctlOk('key', 'revoke', '--id', keyId);
      for (const base of stack.baseUrls) {
        expect(await errorOf(await post(`Bearer ${key}`, base))).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
      }
    });

    it('raises AuthenticationError with the code in the openai client', async () => {
      const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: `sk-shfr-${'b'.repeat(40)}`, maxRetries: 0 });
      const err = await client.chat.completions.create({ ...CHAT, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(err).toMatchObject({ status: 401, code: 'INVALID_API_KEY', type: 'authentication_error' });
    });
  });

  describe('403 ACCOUNT_SUSPENDED (rule 8)', () => {
    it('refuses every key of a suspended account with the suspension object, through both edges', async () => {
      const { accountId, key } = await account();
      const second = await ctlOk<{ key: string }>('key', 'create', '--account', accountId);
      shownKeys.push(second.key);
      const until = new Date(Date.now() + 86_400_000).toISOString();
      const shown = await ctlOk<{ suspension: unknown }>(
        'account',
        'suspend',
        '--account',
        accountId,
        '--until',
        until,
        '--reason',
        'unpaid invoice',
      );
      expect(shown.suspension).toEqual({ until, reason: 'unpaid invoice', whatsapp: '+218 91 234 5678' });
      for (const [base, k] of [
        [stack.baseUrls[0], key],
        [stack.baseUrls[1], second.key],
      ]) {
        const err = await errorOf(await post(`Bearer ${k}`, base));
        expect(err).toMatchObject({
          status: 403,
          code: 'ACCOUNT_SUSPENDED',
          type: 'permission_error',
          suspension: { until, reason: 'unpaid invoice', whatsapp: '+218 91 234 5678' },
        });
      }
      const usage = await fetch(`${stack.baseUrl}/usage`, { headers: { authorization: `Bearer ${key}` } });
      expect(await errorOf(usage)).toMatchObject({ status: 403, code: 'ACCOUNT_SUSPENDED' });
      const client = new OpenAI({ baseURL: stack.baseUrls[1], apiKey: key, maxRetries: 0 });
      await expect(client.chat.completions.create({ ...CHAT, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
        OpenAI.PermissionDeniedError,
      );

      await ctlOk('account', 'unsuspend', '--account', accountId);
      expect((await post(`Bearer ${key}`)).status).toBe(200);
    });

    it('gives null until and reason when none were set, and lets a suspension whose end has passed lapse', async () => {
      const open = await account();
      await ctlOk('account', 'suspend', '--account', open.accountId);
      expect((await errorOf(await post(`Bearer ${open.key}`))).suspension).toEqual({
        until: null,
        reason: null,
        whatsapp: '+218 91 234 5678',
      });

      const lapsed = await account();
      await ctlOk('account', 'suspend', '--account', lapsed.accountId, '--until', new Date(Date.now() - 1000).toISOString());
      expect((await post(`Bearer ${lapsed.key}`)).status).toBe(200);
    });

    it('refuses new keys for a suspended account and for one scheduled for deletion', async () => {
      const suspended = await account();
      await ctlOk('account', 'suspend', '--account', suspended.accountId);
      const refused = await stack.ctl('key', 'create', '--account', suspended.accountId);
      expect(refused.exitCode).not.toBe(0);
      expect(refused.json).toMatchObject({ error: { code: 'FAILED_PRECONDITION' } });

      const leaving = await account();
      await ctlOk('account', 'schedule-deletion', '--account', leaving.accountId);
      expect((await stack.ctl('key', 'create', '--account', leaving.accountId)).json).toMatchObject({
        error: { code: 'FAILED_PRECONDITION' },
      });
    });
  });

  it('counts no missing or invalid key toward the limit (rule 11)', async () => {
    const { key } = await account();
    for (let i = 0; i < 5; i++) {
      await post(undefined);
      await post(`Bearer sk-shfr-${String(i).repeat(40)}`);
    }
    const res = await post(`Bearer ${key}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('29');
  });

  it('keeps "last used" at Never until the first accepted request, then a time', async () => {
    const { accountId, key } = await account();
    expect((await ctlOk<{ lastUsed: string }[]>('key', 'list', '--account', accountId))[0].lastUsed).toBe('Never');
    expect((await post(`Bearer ${key}`)).status).toBe(200);
    const lastUsed = await eventually(
      async () => (await ctlOk<{ lastUsed: string }[]>('key', 'list', '--account', accountId))[0].lastUsed,
      (used) => used !== 'Never',
      { intervalMs: 100 },
    );
    expect(new Date(lastUsed).toString()).not.toBe('Invalid Date');
  });

  describe('GET /v1/models and /v1/models/{id} (no key needed, not counted)', () => {
    it('lists the two public models without a key, in the shape the openai client reads', async () => {
      const res = await fetch(`${stack.baseUrl}/models`);
      expect(await res.json()).toEqual({
        object: 'list',
        data: [
          { id: 'vendor-v4-flash', object: 'model', created: expect.any(Number), owned_by: expect.any(String) },
          { id: 'vendor-v4-pro', object: 'model', created: expect.any(Number), owned_by: expect.any(String) },
        ],
      });
    });

    it("adds the account's granted models with its key, and serves them by id", async () => {
      const { accountId, key } = await account();
      const modelId = `vendor-v4-custom-${process.pid}`;
      expect(await ctlOk('model', 'add', '--id', modelId, '--vision')).toEqual({ id: modelId, vision: true });
      const shown = await ctlOk<{ models: string[] }>('account', 'grant-model', '--account', accountId, '--model', modelId);
      expect(shown.models).toContain(modelId);

      const mine = new OpenAI({ baseURL: stack.baseUrl, apiKey: key, maxRetries: 0 });
      const ids: string[] = [];
      for await (const model of mine.models.list()) ids.push(model.id);
      expect(ids).toEqual(['vendor-v4-flash', 'vendor-v4-pro', modelId]);
      expect(await mine.models.retrieve(modelId)).toMatchObject({ id: modelId, object: 'model' });
      await ctlOk('price', 'set', '--model', modelId, '--input', '2', '--output', '8');
      expect((await mine.chat.completions.create({ ...CHAT, model: modelId })).model).toBe(modelId);

      const publicOnly = (await (await fetch(`${stack.baseUrl}/models`)).json()) as { data: { id: string }[] };
      expect(publicOnly.data.map((m) => m.id)).not.toContain(modelId);
      const other = await account();
      const refused = await fetch(`${stack.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...CHAT, model: modelId }),
      });
      expect(await errorOf(refused)).toMatchObject({ status: 400, code: 'MODEL_NOT_FOUND', param: 'model' });
    });

    it('gives 404 MODEL_NOT_FOUND for an id not served, and 401 for a present but invalid key', async () => {
      const missing = await fetch(`${stack.baseUrl}/models/vendor-v9`);
      expect(await errorOf(missing)).toMatchObject({ status: 404, code: 'MODEL_NOT_FOUND', type: 'invalid_request_error' });
      expect((await fetch(`${stack.baseUrl}/models/vendor-v4-pro`)).status).toBe(200);
      const bad = await fetch(`${stack.baseUrl}/models`, { headers: { authorization: `Bearer sk-shfr-${'c'.repeat(40)}` } });
      expect(await errorOf(bad)).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
    });

    it('does not count model listings toward the rate limit', async () => {
      const { key } = await account();
      for (let i = 0; i < 3; i++) await fetch(`${stack.baseUrl}/models`, { headers: { authorization: `Bearer ${key}` } });
      expect((await post(`Bearer ${key}`)).headers.get('x-ratelimit-remaining')).toBe('29');
    });
  });

  describe('GET /v1/usage', () => {
    it('answers integers for a valid key, without counting toward the limit, and 401 without one', async () => {
      const { key } = await account();
      const res = await fetch(`${stack.baseUrl}/usage`, { headers: { authorization: `Bearer ${key}` } });
      expect(await res.json()).toEqual({ todayTokens: 0, totalTokens: 0 });
      expect((await post(`Bearer ${key}`)).headers.get('x-ratelimit-remaining')).toBe('29');
      expect(await errorOf(await fetch(`${stack.baseUrl}/usage`))).toMatchObject({ status: 401, code: 'MISSING_API_KEY' });
      const bad = await fetch(`${stack.baseUrl}/usage`, { headers: { authorization: 'Bearer sk-wrong' } });
      expect(await errorOf(bad)).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
    });
  });

  it('keeps no raw key in any table or any log line', async () => {
    expect(shownKeys.length).toBeGreaterThan(5);
    const pg = new PgClient({ connectionString: stack.env.DATABASE_URL });
    await pg.connect();
    try {
      const tables = await pg.query<{ name: string }>(
        "SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema IN ('auth', 'billing') AND table_type = 'BASE TABLE'",
      );
      expect(tables.rows.length).toBeGreaterThan(4);
      let dump = '';
      for (const { name } of tables.rows)
        dump += (await pg.query<{ t: string }>(`SELECT t::text AS t FROM ${name} t`)).rows.map((r) => r.t).join('\n');
      const logs = stack.logs.join('\n');
      for (const key of shownKeys) {
        expect(dump).not.toContain(key.slice(12));
        expect(logs).not.toContain(key.slice(12));
      }
    } finally {
      await pg.end();
    }
  });
});
