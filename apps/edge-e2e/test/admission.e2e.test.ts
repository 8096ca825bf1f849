import Redis from 'ioredis';
import { Client as PgClient } from 'pg';
import { quotaV1 } from '@gw/contracts';
import { clientChain, RpcClient, rpcClient } from '@gw/service-kit';
import { awayFromMinuteEnd, GatewayUnderTest, RunningStack, scrapeMetrics, startGateway, WAITS_FOR_MINUTE_MS } from '@gw/test-stack';
import { eventually } from '@gw/testing';

// Tests here wait for a minute's end (awayFromMinuteEnd), up to 30 s, before their own work.
jest.setTimeout(WAITS_FOR_MINUTE_MS);

interface Reply {
  status: number;
  code: string;
  remaining: number;
  balance?: number;
  requiredLyd?: number;
}

const FLASH = 'vendor-v4-flash';

/**
 * One-call admission end to end, on Redis and real Postgres: two edges, two
 * quota-services and the chat product on one account, the credit line kept inside the balance,
 * top-ups, a negative balance change while requests run, and a price change in force on every
 * replica when `ctl price set` returns.
 */
describe('one-call admission across 2 edges, 2 quota-services and the chat product', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  let pg: PgClient;
  let store: Redis;
  let chatProduct: RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;

  beforeAll(async () => {
    // This file counts and bills exactly under bursts of 200: the services' own deadlines far
    // above what a loaded 2-core machine stretches a call to (a clean-clone CI answered most of
    // a burst 500, every Admit past the 1 s default), so a reply is the rules', not the load's.
    gw = await startGateway({ FREE_PEAK_HOURS_UTC: '0-0', SETTLE_POLL_MS: '50' }, { replicas: { edge: 2, quota: 2 } });
    stack = gw.stack;
    await ctl('freetier', 'set', '--enabled', 'false');
    pg = new PgClient({ connectionString: stack.env.DATABASE_URL });
    await pg.connect();
    store = new Redis(stack.env.REDIS_URL);
    const settings = { timeoutMs: 5000, chain: clientChain() };
    chatProduct = rpcClient(quotaV1.QuotaClient, stack.env.QUOTA_ADDR, stack.grpcSecurity('chat-product'), 'quota-service', settings);
  }, 120_000);

  afterAll(async () => {
    chatProduct?.close();
    store?.disconnect();
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

  async function chat(key: string, edge: number, content: string, maxTokens = 64): Promise<Reply> {
    const res = await fetch(`${stack.baseUrls[edge % 2]}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: FLASH, max_tokens: maxTokens, messages: [{ role: 'user', content }] }),
    });
    const body = (await res.json()) as { error?: { code: string; balance?: number; requiredLyd?: number } };
    return {
      status: res.status,
      code: body.error?.code ?? 'ok',
      remaining: Number(res.headers.get('x-ratelimit-remaining')),
      balance: body.error?.balance,
      requiredLyd: body.error?.requiredLyd,
    };
  }

  const balanceMicro = async (accountId: string) =>
    Math.round((await ctl<{ balance: number }>('account', 'show', '--account', accountId)).balance * 1e6);
  const simUrl = () => stack.providerUrl.replace(/\/v1$/, '');

  /** Reads `read` every few ms while `work` runs: the highest value seen. */
  async function highestWhile(read: () => Promise<number>, work: Promise<unknown>): Promise<number> {
    let highest = 0;
    let done = false;
    void work.finally(() => (done = true));
    while (!done) {
      highest = Math.max(highest, await read());
      // Sampling while the work runs is the scenario: the highest value seen is what is asserted.
      await new Promise((r) => setTimeout(r, 5));
    }
    return highest;
  }

  it('admits exactly 30 of 200 parallel requests of the API and the chat product, Remaining strictly down, never more than 3 running', async () => {
    const { accountId, key } = await account('10');
    const places = `${stack.env.REDIS_KEY_PREFIX}{${accountId}}:places`;
    await fetch(`${simUrl()}/sim/stats/reset`, { method: 'POST' });
    await awayFromMinuteEnd(25);

    const turn = async (): Promise<Reply> => {
      const counted = await chatProduct.countRequest({ accountId });
      if (!counted.allowed) return { status: 429, code: 'rate_limit_error', remaining: counted.remaining };
      const requestId = `turn-${Math.random().toString(36).slice(2)}`;
      const place = await chatProduct.acquirePlace({ accountId, requestId });
      if (!place.granted) return { status: 429, code: 'concurrency_limit', remaining: counted.remaining };
      // The chat product's turn holds its place for 200 ms: the scenario.
      await new Promise((r) => setTimeout(r, 200));
      await chatProduct.releasePlace({ accountId, requestId, promptTokens: 10, completionTokens: 10 });
      return { status: 200, code: 'ok', remaining: counted.remaining };
    };
    const burst = Promise.all(Array.from({ length: 200 }, (_, i) => (i % 4 === 3 ? turn() : chat(key, i, '[[sim:delay_ms=200]] burst'))));
    const mostPlaces = await highestWhile(() => store.hlen(places), burst);
    const replies = await burst;

    const counted = replies.filter((r) => r.code !== 'rate_limit_error');
    expect(counted).toHaveLength(30);
    expect(counted.map((r) => r.remaining).sort((a, b) => b - a)).toEqual(Array.from({ length: 30 }, (_, i) => 29 - i));
    expect(replies.every((r) => ['ok', 'rate_limit_error', 'concurrency_limit'].includes(r.code))).toBe(true);
    expect(replies.filter((r) => r.code === 'ok').length).toBeGreaterThanOrEqual(3);
    expect(mostPlaces).toBeGreaterThan(0);
    expect(mostPlaces).toBeLessThanOrEqual(3);
    const stats = (await (await fetch(`${simUrl()}/sim/stats`)).json()) as { maxInFlight: number };
    expect(stats.maxInFlight).toBeLessThanOrEqual(3);
  });

  it('never holds more than the balance, answers every 402 with requiredLyd above the balance, and lets the next request through after a top-up', async () => {
    // Each request holds its prompt plus 1,000 completion tokens at 4 micro-LYD each: about 4,040
    // micro-LYD. The balance covers two such worst cases, not three.
    const { accountId, key } = await account('0.009');
    const credit = `${stack.env.REDIS_KEY_PREFIX}{${accountId}}:credit`;
    await awayFromMinuteEnd(10);
    const burst = Promise.all(Array.from({ length: 12 }, (_, i) => chat(key, i, '[[sim:delay_ms=300]] [[sim:words=3]] money', 1000)));
    const mostHeld = await highestWhile(async () => Number((await store.hget(credit, 'hd')) ?? 0), burst);
    const replies = await burst;

    expect(mostHeld).toBeGreaterThan(0);
    expect(mostHeld).toBeLessThanOrEqual(9000);
    const paid = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 402);
    expect(paid.length).toBeGreaterThanOrEqual(1);
    expect(paid.length + refused.length).toBe(12);
    for (const r of refused) {
      expect(r.code).toBe('FREE_TIER_EXHAUSTED');
      expect(r.requiredLyd).toBeGreaterThan(r.balance as number);
    }
    const { rows } = await eventually(
      () => pg.query<{ n: string }>('SELECT count(*) AS n FROM billing.ledger WHERE account_id = $1', [accountId]),
      (r) => Number(r.rows[0].n) === paid.length,
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(Number(rows[0].n)).toBe(paid.length);
    expect(await balanceMicro(accountId)).toBeGreaterThanOrEqual(0);

    // Too little for one more worst case, until money is added.
    expect((await chat(key, 0, 'still too little', 3000)).status).toBe(402);
    await ctl('balance', 'add', '--account', accountId, '--amount', '1');
    expect((await chat(key, 1, 'after the top-up', 3000)).status).toBe(200);
  });

  it('takes money from a balance while its requests run: the unheld credit line comes back first', async () => {
    const { accountId, key } = await account('1');
    const operatorReturns = async () => {
      const scrapes = await Promise.all(stack.replicaMetricsUrls['quota-service'].map(scrapeMetrics));
      return scrapes.reduce((sum, s) => sum + s.value('quota_credit_line_returns_total', { reason: 'operator' }), 0);
    };
    const returnsBefore = await operatorReturns();
    const running = Promise.all(Array.from({ length: 6 }, (_, i) => chat(key, i, '[[sim:delay_ms=400]] [[sim:words=4]] busy')));
    const simInFlight = async () => ((await (await fetch(`${simUrl()}/sim/stats`)).json()) as { inFlight: number }).inFlight;
    await eventually(simInFlight, (n) => n > 0, { intervalMs: 20, what: 'a request at the provider, its line taken' });
    const taken = await stack.ctl('balance', 'add', '--account', accountId, '--amount', '-0.5');
    expect(taken.exitCode).toBe(0);
    // The line held the money: billing-service refused the change until quota-service gave the line back.
    expect((await operatorReturns()) - returnsBefore).toBeGreaterThanOrEqual(1);
    const replies = await running;
    expect(replies.every((r) => r.status === 200 || r.code === 'concurrency_limit')).toBe(true);
    const answered = replies.filter((r) => r.status === 200).length;
    const billed = await eventually(
      async () =>
        (
          await pg.query<{ n: string; total: string | null }>(
            'SELECT count(*) AS n, sum(amount_micro) AS total FROM billing.ledger WHERE account_id = $1',
            [accountId],
          )
        ).rows[0],
      (r) => Number(r.n) === answered,
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(await balanceMicro(accountId)).toBe(500_000 - Number(billed.total ?? 0));
    const { rows } = await pg.query<{ held_micro: string; line_micro: string; balance_micro: string }>(
      'SELECT held_micro, line_micro, balance_micro FROM billing.balances WHERE account_id = $1',
      [accountId],
    );
    expect(Number(rows[0].held_micro) + Number(rows[0].line_micro)).toBeLessThanOrEqual(Number(rows[0].balance_micro));
  });

  it('bills the next request on every replica at a new price once ctl price set has returned', async () => {
    const { accountId, key } = await account('5');
    expect((await chat(key, 0, 'at the old price')).status).toBe(200);
    await ctl('price', 'set', '--model', FLASH, '--input', '3', '--output', '9');
    // One after another through each edge (and so each quota-service): four at once would find only 3 places.
    const after: Reply[] = [];
    for (const i of [0, 1, 2, 3]) after.push(await chat(key, i, 'at the new price'));
    expect(after.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const { rows } = await eventually(
      () =>
        pg.query<{ input_micro_per_million: string; output_micro_per_million: string }>(
          'SELECT input_micro_per_million, output_micro_per_million FROM billing.ledger WHERE account_id = $1 ORDER BY created_at',
          [accountId],
        ),
      (r) => r.rows.length === 5,
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(rows.map((r) => [Number(r.input_micro_per_million), Number(r.output_micro_per_million)])).toEqual([
      [1_000_000, 4_000_000],
      [3_000_000, 9_000_000],
      [3_000_000, 9_000_000],
      [3_000_000, 9_000_000],
      [3_000_000, 9_000_000],
    ]);
  });
});
