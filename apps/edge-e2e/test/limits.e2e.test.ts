import { awayFromMinuteEnd, GatewayUnderTest, RunningStack, scrapeMetrics, startGateway, WAITS_FOR_MINUTE_MS } from '@gw/test-stack';
import { eventually } from '@gw/testing';

// Tests here wait for a minute's end (awayFromMinuteEnd), up to 30 s, before their own work.
jest.setTimeout(WAITS_FOR_MINUTE_MS);

interface ErrorBody {
  error: Record<string, unknown>;
}

/** A reply's status, error code and rate headers. */
interface Reply {
  status: number;
  code: string | undefined;
  limit: string | null;
  remaining: string | null;
  reset: string | null;
  retryAfter: string | null;
  /** The test's clock (this host's, as Redis's) when the request was sent and when its reply came. */
  sentAt: number;
  doneAt: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('limits through the API (docs/api.md#rate-limits): two edges, two quota-services, one Redis', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;

  beforeAll(async () => {
    gw = await startGateway({}, { replicas: { edge: 2, quota: 2 } });
    stack = gw.stack;
  }, 90_000);

  afterAll(async () => {
    await gw?.stop();
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
    (await (await fetch(`${stack.providerUrl.replace(/\/v1$/, '')}/sim/stats`)).json()) as {
      inFlight: number;
      maxInFlight: number;
      total: number;
    };
  const resetSim = () => fetch(`${stack.providerUrl.replace(/\/v1$/, '')}/sim/stats/reset`, { method: 'POST' });

  it('sends the rate headers on every reply once the key is accepted, and the per-minute 429 with limit and Retry-After', async () => {
    await awayFromMinuteEnd(20);
    const key = await newKey();
    const minuteEnd = Math.ceil((Date.now() + 1) / 60_000) * 60;
    for (let i = 1; i <= 30; i++) {
      // Bad JSON is refused after counting, so it uses up the minute without calling the provider.
      const res = await fetch(`${stack.baseUrls[i % 2]}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: '{',
      });
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
    expect(body).toEqual({
      error: { message: expect.any(String), type: 'rate_limit_error', code: 'rate_limit_error', param: null, limit: 30 },
    });
  });

  it('refuses a fourth request at once with 429 concurrency_limit, without Retry-After, and frees the place after the reply', async () => {
    await awayFromMinuteEnd(20);
    const key = await newKey();
    const slow = [0, 1, 2].map((i) => chat(key, stack.baseUrls[i % 2], '[[sim:delay_ms=1500]] slow'));
    await eventually(async () => (await simStats()).inFlight >= 3, { what: 'the three slow requests at the provider' });
    const fourth = await chat(key, stack.baseUrls[1]);
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('retry-after')).toBeNull();
    expect(fourth.headers.get('x-ratelimit-limit')).toBe('30');
    expect(fourth.headers.get('x-ratelimit-remaining')).toBe('26');
    expect(await fourth.json()).toEqual({
      error: { message: expect.any(String), type: 'rate_limit_error', code: 'concurrency_limit', param: null },
    });
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200, 200]);
    // Each try counts against the minute's 30: a place that is not back within 2 s fails here.
    const after = await eventually(
      () => chat(key, stack.baseUrls[0]),
      (reply) => reply.status !== 429,
      { timeoutMs: 2000, intervalMs: 100 },
    );
    expect(after.status).toBe(200);
  });

  it('lets requests refused before the provider call neither take nor need a place (rule 6)', async () => {
    await awayFromMinuteEnd(20);
    const key = await newKey();
    const slow = [0, 1, 2].map((i) => chat(key, stack.baseUrls[i % 2], '[[sim:delay_ms=1500]] slow'));
    await eventually(async () => (await simStats()).inFlight >= 3, { what: 'the three slow requests at the provider' });
    const badJson = await fetch(`${stack.baseUrls[0]}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: '{',
    });
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
      Array.from({ length: 100 }, (_, i) =>
        chat(key, stack.baseUrls[i % 2], '[[sim:delay_ms=200]] burst').then(async (r) => ({ status: r.status, body: await r.text() })),
      ),
    );
    const code = (r: { status: number; body: string }) =>
      r.status === 200 ? 'ok' : ((JSON.parse(r.body) as ErrorBody).error.code as string);
    const codes = replies.map(code);
    const counted = codes.filter((c) => c !== 'rate_limit_error').length;
    expect(counted).toBe(30);
    expect(codes.filter((c) => c === 'ok').length).toBeGreaterThanOrEqual(3);
    expect(codes.every((c) => ['ok', 'rate_limit_error', 'concurrency_limit'].includes(c))).toBe(true);
    const stats = await simStats();
    expect(stats.maxInFlight).toBeLessThanOrEqual(3);
    expect(stats.total).toBe(codes.filter((c) => c === 'ok').length);
  });

  // An account quota-service refused in the current clock minute (docs/architecture.md#one-request-start-to-end)
  // is refused by each edge itself until the minute ends, with the headers quota-service gives and
  // without a CountRequest; the minute's end is Redis's, so nothing is refused once it has passed.

  /** A chat request on edge `edge`; `body` '{' is bad JSON, counted but never sent to the provider. */
  async function send(key: string, edge: number, body = '{'): Promise<Reply> {
    const sentAt = Date.now();
    const res = await fetch(`${stack.baseUrls[edge]}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    const json = (await res.json()) as { error?: { code: string } };
    const header = (name: string) => res.headers.get(name);
    return {
      status: res.status,
      code: json.error?.code,
      limit: header('x-ratelimit-limit'),
      remaining: header('x-ratelimit-remaining'),
      reset: header('x-ratelimit-reset'),
      retryAfter: header('retry-after'),
      sentAt,
      doneAt: Date.now(),
    };
  }
  const chatBody = JSON.stringify({ model: 'vendor-v4-flash', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });

  /** CountRequest calls quota-service answered, over both replicas (each EdgeCalls call counts under its method). */
  /** The calls that count a request at quota-service: CountRequest (a body the edge refused) and Admit. */
  const countCalls = async () => {
    const scrapes = await Promise.all(stack.replicaMetricsUrls['quota-service'].map(scrapeMetrics));
    const calls = (method: string) =>
      scrapes.reduce((sum, scrape) => sum + scrape.value('grpc_server_handling_seconds_count', { method }), 0);
    return calls('CountRequest') + calls('Admit');
  };
  const localRefusals = async () => (await scrapeMetrics(stack.metricsUrls.edge)).value('edge_local_rate_refusals_total');

  /** Retry-After as quota-service computes it at `at` ms (docs/api.md#rate-limits): whole seconds to the minute's end, rounded up. */
  const secondsLeft = (minuteEnd: number, at: number) => Math.ceil((minuteEnd * 1000 - at) / 1000);

  it('refuses an account over its 30 itself on both edges, as quota-service would and without asking it, until the minute ends', async () => {
    const [key, otherKey] = await Promise.all([newKey(), newKey()]);
    // Time enough for what comes before the minute's end (under a second here), and little more:
    // the test then waits for that end.
    await awayFromMinuteEnd(6);
    const minuteEnd = Math.ceil((Date.now() + 1) / 60_000) * 60;

    for (let i = 1; i <= 30; i++) expect(await send(key, i % 2)).toMatchObject({ status: 400, remaining: String(30 - i) });
    // The first refusal on each edge comes from quota-service, and teaches that edge.
    const fromQuota = [await send(key, 0), await send(key, 1)];
    for (const reply of fromQuota) {
      expect(reply).toMatchObject({ status: 429, code: 'rate_limit_error', limit: '30', remaining: '0', reset: String(minuteEnd) });
      expect(Number(reply.retryAfter)).toBeGreaterThanOrEqual(secondsLeft(minuteEnd, reply.doneAt));
      expect(Number(reply.retryAfter)).toBeLessThanOrEqual(secondsLeft(minuteEnd, reply.sentAt));
    }

    const callsBefore = await countCalls();
    const localBefore = await localRefusals();
    const refused: Reply[] = [];
    // Bad JSON and a valid chat alike: the body is never read, and the provider never called.
    for (let i = 0; i < 20; i++) refused.push(await send(key, i % 2, i % 4 < 2 ? '{' : chatBody));
    for (const reply of refused) {
      expect(reply).toMatchObject({ status: 429, code: 'rate_limit_error', limit: '30', remaining: '0', reset: String(minuteEnd) });
      // What quota-service would have said between sending and the reply, never less; the edge
      // reckons the minute's end from when quota-service's answer came back, so within that
      // answer's trip of a second's turn it may say one second more.
      expect(Number(reply.retryAfter)).toBeGreaterThanOrEqual(secondsLeft(minuteEnd, reply.doneAt));
      expect(Number(reply.retryAfter)).toBeLessThanOrEqual(secondsLeft(minuteEnd, reply.sentAt) + 1);
    }
    expect(await countCalls()).toBe(callsBefore);
    expect((await localRefusals()) - localBefore).toBe(10);

    // Another account is counted by quota-service as before; reading usage and models is never refused.
    expect(await send(otherKey, 0, chatBody)).toMatchObject({ status: 200, remaining: '29', reset: String(minuteEnd) });
    expect(await send(otherKey, 1)).toMatchObject({ status: 400, remaining: '28' });
    expect(await countCalls()).toBe(callsBefore + 2);
    for (const base of stack.baseUrls) {
      expect((await fetch(`${base}/usage`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      expect((await fetch(`${base}/models`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    }

    // Up to the minute's end and across it, every 25 ms, alternating edges: refused while the
    // minute lasts, and never once it has ended (this host's clock is Redis's). The pacing is the scenario.
    await sleep(minuteEnd * 1000 - 1_500 - Date.now());
    const across: Reply[] = [];
    while (Date.now() < minuteEnd * 1000 + 500) {
      across.push(await send(key, across.length % 2));
      await sleep(25);
    }
    const before = across.filter((r) => r.doneAt < minuteEnd * 1000);
    const after = across.filter((r) => r.sentAt >= minuteEnd * 1000);
    expect(before.length).toBeGreaterThan(10);
    expect(after.length).toBeGreaterThan(5);
    for (const reply of before) expect(reply).toMatchObject({ status: 429, code: 'rate_limit_error', reset: String(minuteEnd) });
    for (const reply of after) expect(reply).toMatchObject({ status: 400, code: 'INVALID_JSON', reset: String(minuteEnd + 60) });
    // The first request the new minute counted was its first: Remaining 29, then one less each time.
    const counted = across.filter((r) => r.status === 400).map((r) => r.remaining);
    expect(counted).toEqual(counted.map((_, i) => String(29 - i)));
    const admitted = await send(key, 1, chatBody);
    expect(admitted).toMatchObject({ status: 200, reset: String(minuteEnd + 60) });
  }, 120_000);
});
