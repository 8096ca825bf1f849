import { Client as PgClient } from 'pg';
import { GatewayUnderTest, RunningStack, scrapeMetrics, startGateway } from '@gw/test-stack';
import { eventually } from '@gw/testing';

interface ErrorFields {
  status: number;
  code: string;
  type: string;
  reason?: string;
  balance?: number;
  requiredLyd?: number;
}

// vendor-v4-flash costs 1 LYD per million prompt tokens and 4 per million completion tokens.
const FLASH_OUTPUT_MICRO_PER_TOKEN = 4;

describe('money through the API (docs/api.md: the 402 codes, billing rules, free limits)', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  let pg: PgClient;

  beforeAll(async () => {
    // Limits high enough that only money decides in this file.
    gw = await startGateway({ RATE_LIMIT_PER_MINUTE: '1000', CONCURRENCY_LIMIT: '100', FREE_PEAK_HOURS_UTC: '0-0', SETTLE_POLL_MS: '50' });
    stack = gw.stack;
    pg = new PgClient({ connectionString: stack.env.DATABASE_URL });
    await pg.connect();
  }, 90_000);

  afterAll(async () => {
    await pg?.end();
    await gw?.stop();
  }, 60_000);

  async function ctl<T>(...args: string[]): Promise<T> {
    const { json, exitCode } = await stack.ctl(...args);
    if (exitCode !== 0) throw new Error(`ctl ${args.join(' ')}: ${JSON.stringify(json)}`);
    return json as T;
  }

  async function account(balance: string): Promise<{ accountId: string; key: string }> {
    const { accountId } = await ctl<{ accountId: string }>('account', 'create', '--balance', balance);
    return { accountId, key: (await ctl<{ key: string }>('key', 'create', '--account', accountId)).key };
  }

  const freeTier = (...flags: string[]) => ctl('freetier', 'set', ...flags);

  function chat(key: string, body: Record<string, unknown>) {
    return fetch(`${stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'hi' }], ...body }),
    });
  }

  async function refusal(res: Response): Promise<ErrorFields> {
    const { error } = (await res.json()) as { error: Omit<ErrorFields, 'status'> };
    return { status: res.status, ...error };
  }

  async function ledger(
    accountId: string,
  ): Promise<{ request_id: string; amount_micro: string; paid: boolean; usage_estimated: boolean }[]> {
    return (
      await pg.query('SELECT request_id, amount_micro::text, paid, usage_estimated FROM billing.ledger WHERE account_id = $1', [accountId])
    ).rows;
  }

  async function balanceMicro(accountId: string): Promise<number> {
    return Math.round((await ctl<{ balance: number }>('account', 'show', '--account', accountId)).balance * 1e6);
  }

  describe('402 rows, each with code, reason, balance and requiredLyd', () => {
    beforeEach(() => freeTier('--enabled', 'true', '--paused', 'false', '--daily-tokens', '200000', '--pool-tokens', '50000000'));

    it('FREE_TIER_EXHAUSTED with the insufficient-balance text when the free tier is off; requiredLyd only when a balance exists', async () => {
      await freeTier('--enabled', 'false');
      const broke = await account('0');
      expect(await refusal(await chat(broke.key, {}))).toEqual({
        status: 402,
        type: 'insufficient_quota',
        code: 'FREE_TIER_EXHAUSTED',
        param: null,
        message: expect.any(String),
        balance: 0,
      });
      const short = await account('0.000001');
      const err = await refusal(await chat(short.key, { max_tokens: 1000 }));
      expect(err).toMatchObject({ status: 402, code: 'FREE_TIER_EXHAUSTED', balance: 0.000001 });
      expect(err.reason).toBeUndefined();
      // Worst case: the prompt estimate at 1 LYD/M plus 1,000 reply tokens at 4 LYD/M.
      expect(err.requiredLyd).toBeGreaterThan(0.004);
      expect(err.requiredLyd).toBeLessThan(0.0041);
    });

    it('FREE_TIER_EXHAUSTED with reason paused', async () => {
      await freeTier('--paused', 'true');
      expect(await refusal(await chat((await account('0')).key, {}))).toMatchObject({
        status: 402,
        code: 'FREE_TIER_EXHAUSTED',
        reason: 'paused',
        balance: 0,
      });
    });

    it('FREE_TIER_MODEL for another model, with requiredLyd when the balance is above zero but too small (rule 2)', async () => {
      const short = await account('0.000001');
      const err = await refusal(await chat(short.key, { model: 'vendor-v4-pro' }));
      expect(err).toMatchObject({ status: 402, code: 'FREE_TIER_MODEL', balance: 0.000001 });
      expect(err.requiredLyd).toBeGreaterThan(0.000001);
    });

    it.each([
      ['thinking enabled', { thinking: { type: 'enabled' } }],
      ['thinking adaptive', { thinking: { type: 'adaptive' } }],
      ['reasoning_effort high', { reasoning_effort: 'high' }],
    ])('FREE_TIER_THINKING for %s', async (_, extra) => {
      expect(await refusal(await chat((await account('0')).key, extra))).toMatchObject({
        status: 402,
        code: 'FREE_TIER_THINKING',
        balance: 0,
      });
    });

    it('FREE_TIER_DAILY_LIMIT reason request_too_large for JSON over 320,000 bytes, while images do not count', async () => {
      const { key } = await account('0');
      const big = await chat(key, { messages: [{ role: 'user', content: 'word '.repeat(66_000) }] });
      expect(await refusal(big)).toMatchObject({ status: 402, code: 'FREE_TIER_DAILY_LIMIT', reason: 'request_too_large', balance: 0 });
      const image = { type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(400_000)}` } };
      const withImage = await chat(key, {
        max_tokens: 5,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'what is it' }, image] }],
      });
      expect(withImage.status).toBe(200);
    });

    it('FREE_TIER_DAILY_LIMIT reason allowance when the rest cannot cover the reply at full max_tokens, then without reason once used up', async () => {
      await freeTier('--daily-tokens', '2100');
      const { key } = await account('0');
      expect((await chat(key, { max_tokens: 2000, messages: [{ role: 'user', content: '[[sim:words=5]] hi' }] })).status).toBe(200);
      // The allowance now has about 2,100 minus the real usage left: too small for a reply of 2,048.
      await eventually(
        () => chat(key, { max_tokens: 2048 }).then(refusal),
        (e) => e.reason === 'allowance',
        { intervalMs: 100 },
      );
      expect(await refusal(await chat(key, { max_tokens: 2048 }))).toMatchObject({
        status: 402,
        code: 'FREE_TIER_DAILY_LIMIT',
        reason: 'allowance',
        balance: 0,
      });

      await freeTier('--daily-tokens', '300');
      const heavy = await account('0');
      // provider-sim counts this prompt far higher than the tokenizer (a long run of one letter), so usage passes the allowance.
      expect((await chat(heavy.key, { max_tokens: 8, messages: [{ role: 'user', content: 'a'.repeat(1600) }] })).status).toBe(200);
      const used = await eventually(
        () => chat(heavy.key, { max_tokens: 1 }).then(refusal),
        (e) => e.code === 'FREE_TIER_DAILY_LIMIT' && e.reason === undefined,
        { intervalMs: 100 },
      );
      expect(used).toMatchObject({ status: 402, code: 'FREE_TIER_DAILY_LIMIT', balance: 0 });
      expect(used.reason).toBeUndefined();
    });

    it('FREE_TIER_EXHAUSTED without reason when the pool for everyone is used up', async () => {
      await freeTier('--pool-tokens', '10');
      const err = await refusal(await chat((await account('0')).key, { max_tokens: 100 }));
      expect(err).toMatchObject({ status: 402, code: 'FREE_TIER_EXHAUSTED', balance: 0 });
      expect(err.reason).toBeUndefined();
    });
  });

  it('runs an uncovered request as a free one: reply capped at 2,048 tokens, a ledger row marked free, nothing charged, usage counted', async () => {
    await freeTier('--enabled', 'true', '--paused', 'false', '--daily-tokens', '200000', '--pool-tokens', '50000000');
    const { accountId, key } = await account('0');
    const res = await chat(key, { max_tokens: 5000, messages: [{ role: 'user', content: '[[sim:words=3000]] tell me everything' }] });
    expect(res.status).toBe(200);
    const reply = (await res.json()) as {
      usage: { prompt_tokens: number; completion_tokens: number };
      choices: { finish_reason: string }[];
    };
    expect(reply.usage.completion_tokens).toBe(2048);
    expect(reply.choices[0].finish_reason).toBe('length');
    const rows = await eventually(
      () => ledger(accountId),
      (r) => r.length > 0,
      { intervalMs: 100 },
    );
    expect(rows).toEqual([{ request_id: expect.any(String), amount_micro: '0', paid: false, usage_estimated: false }]);
    expect(await balanceMicro(accountId)).toBe(0);
    const usage = await ctl<{ todayTokens: number }>('usage', 'show', '--account', accountId);
    expect(usage.todayTokens).toBe(reply.usage.prompt_tokens + reply.usage.completion_tokens);
  });

  it('never overspends under 50 parallel requests whose worst cases exceed the balance: balance = start - sum of the ledger', async () => {
    await freeTier('--enabled', 'false');
    const start = 200_000;
    const { accountId, key } = await account('0.2');
    // Each worst case is about 8,192 x 4 = 32,768 micro-LYD: the balance covers 6 of 50 at once.
    const statuses = await Promise.all(
      Array.from({ length: 50 }, () =>
        chat(key, { messages: [{ role: 'user', content: '[[sim:delay_ms=300]] [[sim:words=50]] go' }] }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(6);
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
    const rows = await eventually(
      () => ledger(accountId),
      (r) => r.length === statuses.filter((s) => s === 200).length,
      { intervalMs: 100 },
    );
    expect(rows.length).toBe(statuses.filter((s) => s === 200).length);
    const charged = rows.reduce((sum, r) => sum + Number(r.amount_micro), 0);
    const balance = await balanceMicro(accountId);
    expect(balance).toBeGreaterThanOrEqual(0);
    expect(balance).toBe(start - charged);
    expect(charged).toBeGreaterThan(rows.length * 50 * FLASH_OUTPUT_MICRO_PER_TOKEN - 1);
  });

  it('carries the calls of requests that run together to quota-service in shared messages, and bills each once', async () => {
    const { accountId, key } = await account('5');
    const calls = async () => {
      const quota = await scrapeMetrics(stack.metricsUrls['quota-service']);
      return {
        finishes: quota.value('grpc_server_handling_seconds_count', { method: 'FinishRequest' }),
        messages: quota.value('grpc_server_call_stream_batch_calls_count', { method: 'EdgeCalls' }),
        carried: quota.value('grpc_server_call_stream_batch_calls_sum', { method: 'EdgeCalls' }),
      };
    };
    const before = await calls();
    const statuses = await Promise.all(
      Array.from({ length: 40 }, () =>
        chat(key, { messages: [{ role: 'user', content: '[[sim:delay_ms=300]] [[sim:words=5]] go' }] }).then((r) => r.status),
      ),
    );
    expect(statuses).toEqual(Array(40).fill(200));
    const rows = await eventually(
      () => ledger(accountId),
      (r) => r.length === 40,
      { intervalMs: 100 },
    );
    expect(new Set(rows.map((r) => r.request_id)).size).toBe(40);
    const after = await calls();
    expect(after.finishes - before.finishes).toBe(40);
    // Each request makes 2 calls on the stream (Admit, FinishRequest): 80, in fewer messages.
    expect(after.carried - before.carried).toBe(80);
    expect(after.messages - before.messages).toBeLessThan(80);
  });

  it('charges once, after it returns, a reply that ended while billing-service was stopped', async () => {
    const { accountId, key } = await account('1');
    const slow = chat(key, { messages: [{ role: 'user', content: '[[sim:delay_ms=1500]] [[sim:words=10]] later' }] });
    const simInFlight = async () =>
      ((await (await fetch(`${stack.providerUrl.replace(/\/v1$/, '')}/sim/stats`)).json()) as { inFlight: number }).inFlight;
    await eventually(simInFlight, (n) => n > 0, { what: 'the slow request at the provider' });
    await stack.stopApp('billing-service');
    try {
      expect((await slow).status).toBe(200);
      // Nothing to wait for: a while passes in which no row may appear.
      await new Promise((r) => setTimeout(r, 1000));
      expect(await ledger(accountId)).toEqual([]);
    } finally {
      await stack.startApp('billing-service');
    }
    const rows = await eventually(
      () => ledger(accountId),
      (r) => r.length > 0,
      { intervalMs: 100 },
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].paid).toBe(true);
    // Nothing to wait for: a while passes in which no second row may appear.
    await new Promise((r) => setTimeout(r, 500));
    expect(await ledger(accountId)).toHaveLength(1);
    expect(await balanceMicro(accountId)).toBe(1_000_000 - Number(rows[0].amount_micro));
  }, 60_000);

  it('loses and doubles no ledger row when every Postgres connection of billing-service is cut mid-load', async () => {
    const start = 5_000_000;
    const { accountId, key } = await account('5');
    // A load paced over 1.2 s, cut in the middle: the pacing is the scenario.
    const load = Array.from({ length: 30 }, (_, i) =>
      new Promise((r) => setTimeout(r, i * 40)).then(() =>
        chat(key, { messages: [{ role: 'user', content: '[[sim:delay_ms=200]] load' }] }).then((res) => res.status),
      ),
    );
    await new Promise((r) => setTimeout(r, 500));
    await pg.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    const statuses = await Promise.all(load);
    const answered = statuses.filter((s) => s === 200).length;
    expect(answered).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200 || s === 500)).toBe(true);
    const rows = await eventually(
      () => ledger(accountId),
      (r) => r.length >= answered,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(rows.length).toBe(answered);
    expect(new Set(rows.map((r) => r.request_id)).size).toBe(rows.length);
    const charged = rows.reduce((sum, r) => sum + Number(r.amount_micro), 0);
    expect(await balanceMicro(accountId)).toBe(start - charged);
  }, 60_000);
});
