import OpenAI from 'openai';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';
import { eventually } from '@gw/testing';

interface KeyCreated {
  id: string;
  key: string;
  prefix: string;
  name: string;
  created: string;
}

describe('one request through every service (real processes, Postgres, Redis, provider-sim)', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;

  beforeAll(async () => {
    gw = await startGateway();
    stack = gw.stack;
  }, 90_000);

  afterAll(async () => {
    await gw?.stop();
  }, 60_000);

  async function newAccountWithKey(balance: string): Promise<{ accountId: string; key: KeyCreated }> {
    const account = await stack.ctl('account', 'create', '--name', 'E2E', '--balance', balance);
    expect(account.exitCode).toBe(0);
    const { accountId } = account.json as { accountId: string };
    const key = await stack.ctl('key', 'create', '--account', accountId, '--name', 'e2e key');
    expect(key.exitCode).toBe(0);
    return { accountId, key: key.json as KeyCreated };
  }

  it('ctl prints what docs/operator-cli.md pins for account create, key create and balance add', async () => {
    const account = await stack.ctl('account', 'create', '--name', 'Pinned');
    expect(account).toEqual({ exitCode: 0, json: { accountId: expect.any(String) } });
    const { accountId } = account.json as { accountId: string };

    const key = await stack.ctl('key', 'create', '--account', accountId);
    expect(key.exitCode).toBe(0);
    const created = key.json as KeyCreated;
    expect(Object.keys(created).sort()).toEqual(['created', 'id', 'key', 'name', 'prefix']);
    expect(created.key).toMatch(/^sk-shfr-[0-9a-f]{40}$/);
    expect(created.prefix).toBe(created.key.slice(0, 12));
    expect(created.name.length).toBeGreaterThan(0);
    expect(new Date(created.created).toString()).not.toBe('Invalid Date');

    expect(await stack.ctl('balance', 'add', '--account', accountId, '--amount', '12.5')).toEqual({ exitCode: 0, json: { balance: 12.5 } });
    expect(await stack.ctl('balance', 'add', '--account', accountId, '--amount', '-2.25')).toEqual({
      exitCode: 0,
      json: { balance: 10.25 },
    });

    const refused = await stack.ctl('key', 'revoke', '--id', 'key_does_not_exist');
    expect(refused.exitCode).not.toBe(0);
    expect(refused.json).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  it('answers the openai client with the provider reply, bills it and counts its tokens', async () => {
    const { accountId, key } = await newAccountWithKey('5');
    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: key.key, maxRetries: 0 });

    const { data: completion, response } = await client.chat.completions
      .create({ model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'Hello there' }] })
      .withResponse();

    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('vendor-v4-flash');
    expect(typeof completion.choices[0].message.content).toBe('string');
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(response.headers.get('x-ratelimit-limit')).toBe('30');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('29');
    expect(response.headers.get('x-request-id')).toBeTruthy();

    const usage = completion.usage ?? { prompt_tokens: 0, completion_tokens: 0 };
    const tokens = usage.prompt_tokens + usage.completion_tokens;
    // vendor-v4-flash is seeded at 1 LYD per million prompt tokens and 4 per million completion tokens.
    const chargedMicro = Math.ceil(usage.prompt_tokens * 1 + usage.completion_tokens * 4);
    await eventually(
      async () => ((await stack.ctl('usage', 'show', '--account', accountId)).json as { totalTokens: number }).totalTokens === tokens,
      { intervalMs: 100 },
    );
    expect((await stack.ctl('usage', 'show', '--account', accountId)).json).toEqual({ todayTokens: tokens, totalTokens: tokens });
    const shown = (await stack.ctl('account', 'show', '--account', accountId)).json as { balance: number };
    expect(Math.round(shown.balance * 1e6)).toBe(5_000_000 - chargedMicro);
  });

  it('refuses a key that does not exist with 401 INVALID_API_KEY through the openai client', async () => {
    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: `sk-shfr-${'0'.repeat(40)}`, maxRetries: 0 });
    await expect(
      client.chat.completions.create({ model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({
      status: 401,
      code: 'INVALID_API_KEY',
    });
  });

  it('never forwards the caller key to the provider', async () => {
    const { key } = await newAccountWithKey('1');
    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: key.key, maxRetries: 0 });
    await client.chat.completions.create({ model: 'vendor-v4-pro', messages: [{ role: 'user', content: 'hi' }] });
    const stats = (await (await fetch(`${stack.providerUrl.replace(/\/v1$/, '')}/sim/stats`)).json()) as { lastAuthorization: string };
    expect(stats.lastAuthorization).toBe('Bearer gateway-');
    expect(stack.logs.join('\n')).not.toContain(key.key.slice(12));
  });

  it('echoes the caller x-request-id and writes one JSON log line for the request with it', async () => {
    const res = await fetch(`${stack.baseUrl}/models`, { headers: { 'x-request-id': 'skeleton-trace-1' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('skeleton-trace-1');
    await eventually(() => stack.logs.some((l) => l.includes('"requestId":"skeleton-trace-1"')));
    const line = JSON.parse(stack.logs.find((l) => l.includes('"requestId":"skeleton-trace-1"')) ?? '{}');
    expect(line).toMatchObject({ service: 'edge', msg: 'request', status: 200, path: '/v1/models' });
  });

  it('answers paths it does not serve with 404 NOT_FOUND and wrong methods with 405 and Allow', async () => {
    const missing = await fetch(`${stack.baseUrl}/embeddings`, { method: 'POST' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string; type: string } }).error).toMatchObject({
      code: 'NOT_FOUND',
      type: 'invalid_request_error',
    });
    const wrong = await fetch(`${stack.baseUrl}/chat/completions`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers a missing key with 401 MISSING_API_KEY and a body over 2 MB with a 413 HTML page', async () => {
    const noKey = await fetch(`${stack.baseUrl}/chat/completions`, { method: 'POST', body: '{}' });
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as { error: { code: string; type: string } }).error).toMatchObject({
      code: 'MISSING_API_KEY',
      type: 'authentication_error',
    });
    const big = await fetch(`${stack.baseUrl}/chat/completions`, { method: 'POST', body: 'x'.repeat(2 * 1024 * 1024 + 1) });
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toContain('text/html');
    expect(big.headers.get('x-request-id')).toBeNull();
  });
});
