import { Client as PgClient } from 'pg';
import { awayFromMinuteEnd, eventually, WAITS_FOR_MINUTE_MS, GatewayUnderTest, startGateway } from '@gw/test-stack';

// Tests here wait for a minute's end (awayFromMinuteEnd), up to 30 s, before their own work.
jest.setTimeout(WAITS_FOR_MINUTE_MS);

interface ErrorBody {
  error: { code: string; type: string };
}

/**
 * The limits, money and free tier of a paid path on a Redis Cluster (REDIS_CLUSTER_NODES, else one
 * of the test's own: 3 masters with a replica each): 2 edges on 2 quota-services in the shard
 * layout, each script in the slot of its account's shard on the master serving it.
 */
describe('on a Redis Cluster: limits, money and the free tier across 2 edges and 2 quota-services', () => {
  let gw: GatewayUnderTest;
  let pg: PgClient;

  beforeAll(async () => {
    gw = await startGateway({ SETTLE_POLL_MS: '100' }, { replicas: { edge: 2, quota: 2 } }, { onCluster: true });
    pg = new PgClient({ connectionString: gw.stack.env.DATABASE_URL });
    await pg.connect();
  }, 90_000);

  afterAll(async () => {
    await pg?.end();
    await gw?.stop();
  }, 60_000);

  const chat = (key: string, edge: number, text = 'hi', extra: Record<string, unknown> = {}) =>
    fetch(`${gw.stack.baseUrls[edge % 2]}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vendor-v4-flash', max_tokens: 16, messages: [{ role: 'user', content: text }], ...extra }),
    });

  const ledger = async (accountId: string) =>
    (
      await pg.query<{ amount_micro: string; paid: boolean }>('SELECT amount_micro::text, paid FROM billing.ledger WHERE account_id = $1', [
        accountId,
      ])
    ).rows;

  it('allows 30 a minute through both edges and refuses the 31st, and a fourth request at once while 3 run', async () => {
    await awayFromMinuteEnd(25);
    const { key } = await gw.account('50');
    const slow = [0, 1, 2].map((i) => chat(key, i, '[[sim:delay_ms=1500]] slow'));
    await eventually(async () => (await gw.simStats()).inFlight >= 3, { what: 'the three slow requests at the provider' });
    const fourth = await chat(key, 1);
    expect(fourth.status).toBe(429);
    expect(((await fourth.json()) as ErrorBody).error.code).toBe('concurrency_limit');
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200, 200]);
    // Every request is counted, a refused one too (a place may still be freeing just after the
    // slow replies): the minute's 31st request, the 27th after these 4, is the first refused for the rate.
    const replies: { status: number; remaining: string | null; code?: string }[] = [];
    for (let i = 0; i < 27; i++) {
      const res = await chat(key, i);
      replies.push({
        status: res.status,
        remaining: res.headers.get('x-ratelimit-remaining'),
        code: res.status === 200 ? undefined : ((await res.json()) as ErrorBody).error.code,
      });
    }
    expect(replies.slice(0, 26).map((r) => r.remaining)).toEqual(Array.from({ length: 26 }, (_, i) => String(25 - i)));
    expect(replies.slice(0, 26).every((r) => r.status === 200 || r.code === 'concurrency_limit')).toBe(true);
    expect(replies.filter((r) => r.status === 200).length).toBeGreaterThan(20);
    expect(replies[26]).toEqual({ status: 429, remaining: '0', code: 'rate_limit_error' });
  });

  it('never overspends: requests at once whose worst cases exceed the balance leave balance = start - sum of the ledger, not below zero', async () => {
    await awayFromMinuteEnd(25);
    await gw.ctlOk('freetier', 'set', '--enabled', 'false');
    const start = 100_000;
    const { accountId, key } = await gw.account('0.1');
    const statuses: number[] = [];
    // 3 at a time (the places), 4 waves; each worst case (8,192 tokens at 4 micro-LYD) is a third of the balance.
    for (let wave = 0; wave < 4; wave++) {
      statuses.push(
        ...(await Promise.all(
          [0, 1, 2].map((i) => chat(key, i, '[[sim:delay_ms=200]] [[sim:words=50]] go', { max_tokens: undefined }).then((r) => r.status)),
        )),
      );
    }
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
    const served = statuses.filter((s) => s === 200).length;
    expect(served).toBeGreaterThanOrEqual(3);
    const rows = await eventually(
      () => ledger(accountId),
      (r) => r.length === served,
      { intervalMs: 100 },
    );
    expect(rows.length).toBe(served);
    const charged = rows.reduce((sum, r) => sum + Number(r.amount_micro), 0);
    expect(charged).toBeGreaterThan(0);
    expect(await gw.settledBalanceMicro(accountId, start - charged)).toBe(start - charged);
  });

  it('serves an account without balance from the free tier: a free ledger row, nothing charged, the tokens counted', async () => {
    await gw.ctlOk('freetier', 'set', '--enabled', 'true', '--paused', 'false');
    const { accountId, key } = await gw.account('0');
    const res = await chat(key, 1, '[[sim:words=20]] hello');
    expect(res.status).toBe(200);
    const reply = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    expect(
      await eventually(
        () => ledger(accountId),
        (r) => r.length > 0,
        { intervalMs: 100 },
      ),
    ).toEqual([{ amount_micro: '0', paid: false }]);
    expect(await gw.balanceMicro(accountId)).toBe(0);
    const usage = await gw.ctlOk<{ todayTokens: number }>('usage', 'show', '--account', accountId);
    expect(usage.todayTokens).toBe(reply.usage.prompt_tokens + reply.usage.completion_tokens);
  });
});
