import { RunningStack, startStack } from '@gw/test-stack';
import { createTestDatabase, eventually, createTestRedis, PausableProxy, startPausableProxy, TestDatabase, TestRedis } from '@gw/testing';

/** The answer to one chat request, or 'hung' when none came within `ms`. */
async function answer(base: string, key: string, ms = 5000): Promise<{ status: number; body: string } | 'hung'> {
  try {
    const res = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vendor-v4-flash', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
      signal: AbortSignal.timeout(ms),
    });
    return { status: res.status, body: await res.text() };
  } catch {
    return 'hung';
  }
}

describe('limits when Redis is refused, silent or slow (docs/operations.md: both limits fail closed)', () => {
  let db: TestDatabase;
  let redis: TestRedis;
  let proxy: PausableProxy;
  let stack: RunningStack;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    [db, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
    proxy = await startPausableProxy(redis.url);
    stack = await startStack({ databaseUrl: db.url, redisUrl: proxy.url, redisKeyPrefix: redis.keyPrefix });
    ({ accountId } = (await stack.ctl('account', 'create', '--balance', '1')).json as { accountId: string });
    key = ((await stack.ctl('key', 'create', '--account', accountId)).json as { key: string }).key;
  }, 90_000);

  afterAll(async () => {
    proxy?.resume();
    await stack?.stop();
    await proxy?.close();
    await Promise.all([db?.drop(), redis?.cleanup()]);
  }, 60_000);

  const balance = async () => ((await stack.ctl('account', 'show', '--account', accountId)).json as { balance: number }).balance;
  const unavailableCount = async () => {
    const text = await (await fetch(stack.metricsUrls['quota-service'])).text();
    return [...text.matchAll(/^quota_store_unavailable_total\{[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  };

  it('answers normally while Redis answers', async () => {
    expect(await answer(stack.baseUrl, key)).toMatchObject({ status: 200 });
    // Its bill reaches billing-service through quota-service's outbox, a moment later: the next
    // test's balance must be read after it, or that bill would look like a charge made meanwhile.
    expect(await eventually(balance, (lyd) => lyd !== 1, { intervalMs: 100 })).toBeLessThan(1);
  });

  it('refuses with a JSON 500 INTERNAL_ERROR at once, no stack trace, nothing charged, while Redis is silent', async () => {
    const before = await balance();
    const counted = await unavailableCount();
    proxy.stall();
    try {
      const reply = await answer(stack.baseUrl, key);
      expect(reply).not.toBe('hung');
      const { status, body } = reply as { status: number; body: string };
      expect(status).toBe(500);
      expect(JSON.parse(body)).toEqual({
        error: { message: expect.any(String), type: 'server_error', code: 'INTERNAL_ERROR', param: null },
      });
      expect(body).not.toMatch(/at .*\.js|Error:/);
    } finally {
      proxy.resume();
    }
    expect(await balance()).toBe(before);
    expect(await unavailableCount()).toBeGreaterThan(counted);
  });

  it('answers normally when Redis is slow but within its deadline', async () => {
    proxy.stall();
    setTimeout(() => proxy.resume(), 50);
    expect(await answer(stack.baseUrl, key)).toMatchObject({ status: 200 });
  });

  it('refuses with a JSON 500 while Redis refuses connections, and recovers when it is back', async () => {
    await proxy.close();
    const reply = await answer(stack.baseUrl, key);
    expect(reply).not.toBe('hung');
    expect(reply).toMatchObject({ status: 500 });
    expect(JSON.parse((reply as { body: string }).body).error.code).toBe('INTERNAL_ERROR');
    proxy = await startPausableProxy(redis.url, Number(new URL(stack.env.REDIS_URL).port));
    const again = await eventually(
      () => answer(stack.baseUrl, key),
      (reply) => reply !== 'hung' && reply.status === 200,
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(again).toMatchObject({ status: 200 });
  }, 30_000);
});
