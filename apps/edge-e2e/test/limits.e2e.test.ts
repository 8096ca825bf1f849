import { RunningStack, startStack } from '@gw/test-stack';
import { createTestDatabase, createTestRedis, TestDatabase, TestRedis } from '@gw/testing';
import { awayFromMinuteEnd } from './gateway-under-test';

interface ErrorBody {
  error: Record<string, unknown>;
}

describe('limits through the API (SPEC 7 429 rows, SPEC 8): two edges, two quota-services, one Redis', () => {
  let db: TestDatabase;
  let redis: TestRedis;
  let stack: RunningStack;

  beforeAll(async () => {
    [db, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
    stack = await startStack({ databaseUrl: db.url, redisUrl: redis.url, redisKeyPrefix: redis.keyPrefix, replicas: { edge: 2, quota: 2 } });
  }, 90_000);

  afterAll(async () => {
    await stack?.stop();
    await Promise.all([db?.drop(), redis?.cleanup()]);
  }, 60_000);

  async function newKey(): Promise<string> {
    const { accountId } = (await stack.ctl('account', 'create', '--balance', '50')).json as { accountId: string };
    return ((await stack.ctl('key', 'create', '--account', accountId)).json as { key: string }).key;
  }

  function chat(key: string, base: string, text = 'hi') {
    return fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vendor-v4-flash', max_tokens: 16, messages: [{ role: 'user', content: text }] }),
    });
  }

  const simStats = async () =>
    (await (await fetch(`${stack.providerUrl.replace(/\/v1$/, '')}/sim/stats`)).json()) as { inFlight: number; maxInFlight: number; total: number };
  const resetSim = () => fetch(`${stack.providerUrl.replace(/\/v1$/, '')}/sim/stats/reset`, { method: 'POST' });

  it('sends the rate headers on every reply once the key is accepted, and the per-minute 429 with limit and Retry-After', async () => {
    await awayFromMinuteEnd(20);
    const key = await newKey();
    const minuteEnd = Math.ceil((Date.now() + 1) / 60_000) * 60;
    for (let i = 1; i <= 30; i++) {
      // Bad JSON is refused after counting, so it uses up the minute without calling the provider.
      const res = await fetch(`${stack.baseUrls[i % 2]}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: '{' });
      expect(res.status).toBe(400);
      expect(res.headers.get('x-ratelimit-limit')).toBe('30');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(30 - i));
      expect(res.headers.get('x-ratelimit-reset')).toBe(String(minuteEnd));
      expect(res.headers.get('retry-after')).toBeNull();
    }
    const over = await chat(key, stack.baseUrls[0]);
    expect(over.status).toBe(429);
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(minuteEnd - Date.now() / 1000) + 1);
    expect(over.headers.get('x-ratelimit-limit')).toBe('30');
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(over.headers.get('x-ratelimit-reset')).toBe(String(minuteEnd));
    const body = (await over.json()) as ErrorBody;
    expect(body).toEqual({ error: { message: expect.any(String), type: 'rate_limit_error', code: 'rate_limit_error', param: null, limit: 30 } });
  });

  it('refuses a fourth request at once with 429 concurrency_limit, without Retry-After, and frees the place after the reply', async () => {
    await awayFromMinuteEnd(20);
    const key = await newKey();
    const slow = [0, 1, 2].map((i) => chat(key, stack.baseUrls[i % 2], '[[sim:delay_ms=1500]] slow'));
    await new Promise((r) => setTimeout(r, 500));
    const fourth = await chat(key, stack.baseUrls[1]);
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('retry-after')).toBeNull();
    expect(fourth.headers.get('x-ratelimit-limit')).toBe('30');
    expect(fourth.headers.get('x-ratelimit-remaining')).toBe('26');
    expect(await fourth.json()).toEqual({ error: { message: expect.any(String), type: 'rate_limit_error', code: 'concurrency_limit', param: null } });
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200, 200]);
    let after = await chat(key, stack.baseUrls[0]);
    for (let i = 0; i < 20 && after.status === 429; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await chat(key, stack.baseUrls[0]);
    }
    expect(after.status).toBe(200);
  });

  it('lets requests refused before the provider call neither take nor need a place (rule 6)', async () => {
    await awayFromMinuteEnd(20);
    const key = await newKey();
    const slow = [0, 1, 2].map((i) => chat(key, stack.baseUrls[i % 2], '[[sim:delay_ms=1500]] slow'));
    await new Promise((r) => setTimeout(r, 500));
    const badJson = await fetch(`${stack.baseUrls[0]}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: '{' });
    expect(badJson.status).toBe(400);
    const unknownModel = await fetch(`${stack.baseUrls[1]}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vendor-v9', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(((await unknownModel.json()) as ErrorBody).error.code).toBe('MODEL_NOT_FOUND');
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200, 200]);
    // Had the two refusals taken places, these three at once would not all get one.
    const again = await Promise.all([0, 1, 2].map((i) => chat(key, stack.baseUrls[i % 2], '[[sim:delay_ms=300]] again')));
    expect(again.map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it('accepts exactly 30 of 100 parallel requests in the minute, never more than 3 at the provider', async () => {
    await awayFromMinuteEnd(30);
    const key = await newKey();
    await resetSim();
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) => chat(key, stack.baseUrls[i % 2], '[[sim:delay_ms=200]] burst').then(async (r) => ({ status: r.status, body: await r.text() }))),
    );
    const code = (r: { status: number; body: string }) => (r.status === 200 ? 'ok' : ((JSON.parse(r.body) as ErrorBody).error.code as string));
    const codes = replies.map(code);
    const counted = codes.filter((c) => c !== 'rate_limit_error').length;
    expect(counted).toBe(30);
    expect(codes.filter((c) => c === 'ok').length).toBeGreaterThanOrEqual(3);
    expect(codes.every((c) => ['ok', 'rate_limit_error', 'concurrency_limit'].includes(c))).toBe(true);
    const stats = await simStats();
    expect(stats.maxInFlight).toBeLessThanOrEqual(3);
    expect(stats.total).toBe(codes.filter((c) => c === 'ok').length);
  });
});
