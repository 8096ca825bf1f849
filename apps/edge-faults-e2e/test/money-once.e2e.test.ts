import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { eventually, GatewayUnderTest, PRODUCTION_DEADLINES, readEvents, scrapeMetrics, startGateway } from '@gw/test-stack';

interface LedgerRow {
  request_id: string;
  month: string;
  amount_micro: string;
  prompt_tokens: string;
  completion_tokens: string;
  usage_estimated: boolean;
  end_reason: string;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

const DAY_MS = 86_400_000;
const thisMonth = () => new Date().toISOString().slice(0, 7);

/** vendor-v4-pro: 4 LYD per million prompt tokens, 16 per million completion tokens, in micro-LYD. */
const proCharge = (usage: Usage) => 4 * usage.prompt_tokens + 16 * usage.completion_tokens;

const ledgerOf = async (pg: PgClient, accountId: string): Promise<LedgerRow[]> =>
  (
    await pg.query<LedgerRow>(
      `SELECT request_id, to_char(request_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, amount_micro::text, prompt_tokens::text,
              completion_tokens::text, usage_estimated, end_reason
         FROM billing.ledger WHERE account_id = $1 ORDER BY request_at`,
      [accountId],
    )
  ).rows;

/** A streamed reply read to its end: its text and the usage chunk the caller asked for. */
async function streamed(res: Response): Promise<{ text: string; usage: Usage }> {
  expect(res.status).toBe(200);
  const { events, error } = await readEvents(res);
  expect(error).toBeUndefined();
  expect(events[events.length - 1]).toBe('[DONE]');
  const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as { choices: { delta?: { content?: string } }[]; usage?: Usage });
  const usage = chunks.find((c) => c.usage)?.usage;
  expect(usage).toBeDefined();
  return { text: chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), usage: usage as Usage };
}

/** The books are whole: balances are their entries less their charges, every movement has its link, the chain verifies. */
async function expectCleanBooks(gateway: GatewayUnderTest): Promise<void> {
  expect(await gateway.stack.ctl('audit')).toMatchObject({ exitCode: 0, json: { ok: true, violations: [] } });
  expect(await gateway.stack.ctl('audit-log', 'verify')).toMatchObject({ exitCode: 0 });
  expect(await gateway.stack.ctl('bills', 'set-aside')).toEqual({ exitCode: 0, json: [] });
}

describe('an edge stalled past its lease while another edge serves the same account', () => {
  let gateway: GatewayUnderTest;
  let pg: PgClient;

  beforeAll(async () => {
    // Renewals every 200 ms, a lease lapses 1 s after the last; a lapsed request keeps its hold
    // and place for a minute, far longer than the stalls below.
    gateway = await startGateway(
      { ...PRODUCTION_DEADLINES, LEASE_RENEW_MS: '200', LEASE_TTL_MS: '1000', LAPSE_GRACE_MS: '60000', SETTLE_POLL_MS: '50' },
      { replicas: { edge: 2 } },
    );
    pg = new PgClient({ connectionString: gateway.stack.env.DATABASE_URL });
    await pg.connect();
  }, 90_000);
  afterAll(async () => {
    gateway?.stack.resumeApp('edge');
    await pg?.end();
    await gateway?.stop();
  }, 60_000);

  const proStream = (key: string, edge: number, words: number) =>
    fetch(`${gateway.stack.baseUrls[edge]}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        model: 'vendor-v4-pro',
        messages: [{ role: 'user', content: `a long one [[sim:words=${words},piece_delay_ms=20]]` }],
        max_tokens: 300,
        stream: true,
        stream_options: { include_usage: true },
      }),
    });

  /** Waits until quota-service has held at least `count` lapsed requests in their grace: the stalled edge's leases lapsed. */
  const lapsedAndHeld = async (count: number) => {
    const held = async () =>
      (await scrapeMetrics(gateway.stack.metricsUrls['quota-service'])).value('quota_lapsed_leases_total', { outcome: 'held' });
    const before = await held();
    return () => eventually(async () => (await held()) >= before + count, { timeoutMs: 20_000 });
  };

  /** Reads a stream's head until its first text: the request holds its place and money, and its reply has begun. */
  const begun = async (res: Response): Promise<Response> => {
    expect(res.status).toBe(200);
    const [head, rest] = (res.body as ReadableStream<Uint8Array>).tee();
    const reader = head.getReader();
    for (let text = ''; !text.includes('"content":"');) {
      const read = await reader.read();
      if (read.done) break;
      text += new TextDecoder().decode(read.value);
    }
    void reader.cancel();
    return new Response(rest, { status: res.status, headers: res.headers });
  };

  it("keeps a stalled stream's hold: no second paid request runs on that money, and the stream is charged once, in full, when its edge comes back", async () => {
    // 0.006 LYD covers one worst case of vendor-v4-pro at max_tokens 300 (4,800 micro-LYD of
    // reply plus the prompt), not two; the free tier refuses vendor-v4-pro.
    const account = await gateway.account('0.006');
    const before = await gateway.balanceMicro(account.accountId);
    const lapsed = await lapsedAndHeld(1);
    const first = await begun(await proStream(account.key, 0, 200));
    gateway.stack.pauseApp('edge', 0);
    let second: Response;
    try {
      await lapsed();
      second = await proStream(account.key, 1, 20);
    } finally {
      gateway.stack.resumeApp('edge', 0);
    }
    expect(second.status).toBe(402);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('FREE_TIER_MODEL');

    const { text, usage } = await streamed(first);
    expect(text.length).toBeGreaterThan(0);
    await eventually(async () => (await ledgerOf(pg, account.accountId)).length > 0, { timeoutMs: 15_000 });
    const rows = await ledgerOf(pg, account.accountId);
    expect(rows).toEqual([
      {
        request_id: expect.any(String),
        month: thisMonth(),
        amount_micro: String(proCharge(usage)),
        prompt_tokens: String(usage.prompt_tokens),
        completion_tokens: String(usage.completion_tokens),
        usage_estimated: false,
        end_reason: 'complete',
      },
    ]);
    expect(await gateway.settledBalanceMicro(account.accountId, before - proCharge(usage))).toBe(before - proCharge(usage));
    await expectCleanBooks(gateway);
  }, 60_000);

  it('keeps the places of stalled streams: a fourth request of the account on the other edge is refused while three are stalled', async () => {
    const account = await gateway.account('5');
    const lapsed = await lapsedAndHeld(3);
    const streams = await Promise.all([0, 1, 2].map(async () => begun(await proStream(account.key, 0, 150))));
    gateway.stack.pauseApp('edge', 0);
    let fourth: Response;
    try {
      await lapsed();
      fourth = await proStream(account.key, 1, 10);
    } finally {
      gateway.stack.resumeApp('edge', 0);
    }
    expect(fourth.status).toBe(429);
    expect(((await fourth.json()) as { error: { code: string } }).error.code).toBe('concurrency_limit');

    const replies = await Promise.all(streams.map(streamed));
    await eventually(async () => (await ledgerOf(pg, account.accountId)).length === 3, { timeoutMs: 15_000 });
    const rows = await ledgerOf(pg, account.accountId);
    expect(rows.map((r) => [r.usage_estimated, r.end_reason])).toEqual([
      [false, 'complete'],
      [false, 'complete'],
      [false, 'complete'],
    ]);
    expect(rows.map((r) => Number(r.amount_micro)).sort()).toEqual(replies.map((r) => proCharge(r.usage)).sort());
    await expectCleanBooks(gateway);
  }, 60_000);
});

describe('an edge whose clock is 100 days slow, and an archive racing its bills', () => {
  let gateway: GatewayUnderTest;
  let pg: PgClient;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'money-once-'));
    gateway = await startGateway(
      { SKEWED_CLOCK_MS: String(-100 * DAY_MS), SETTLE_POLL_MS: '50' },
      { execArgv: { edge: ['--require', join(__dirname, 'skewed-clock.cjs')] } },
    );
    pg = new PgClient({ connectionString: gateway.stack.env.DATABASE_URL });
    await pg.connect();
  }, 90_000);
  afterAll(async () => {
    await pg?.end();
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const ask = (key: string) =>
    gateway.chat(key, {
      model: 'vendor-v4-pro',
      messages: [{ role: 'user', content: 'hello' }],
      max_tokens: 50,
    });

  it("files every bill under quota-service's time of admission: none dropped by an archive of the edge's months, none charged twice", async () => {
    const account = await gateway.account('5');
    const before = await gateway.balanceMicro(account.accountId);
    const first = await ask(account.key);
    expect(first.status).toBe(200);
    const usages: Usage[] = [((await first.json()) as { usage: Usage }).usage];
    await eventually(async () => (await ledgerOf(pg, account.accountId)).length === 1, { timeoutMs: 15_000 });

    // The months before this one are archived while three more requests of the slow edge run.
    const [archive, ...replies] = await Promise.all([
      gateway.stack.ctl('ledger', 'archive', '--before', thisMonth(), '--to', join(dir, 'archive.csv')),
      ask(account.key),
      ask(account.key),
      ask(account.key),
    ]);
    expect(archive).toMatchObject({ exitCode: 0, json: { months: [], rows: 0 } });
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      usages.push(((await reply.json()) as { usage: Usage }).usage);
    }
    await eventually(async () => (await ledgerOf(pg, account.accountId)).length === 4, { timeoutMs: 15_000 });
    const rows = await ledgerOf(pg, account.accountId);
    expect(rows.map((r) => r.month)).toEqual([thisMonth(), thisMonth(), thisMonth(), thisMonth()]);
    expect(new Set(rows.map((r) => r.request_id)).size).toBe(4);
    const charged = usages.reduce((sum, u) => sum + proCharge(u), 0);
    expect(rows.reduce((sum, r) => sum + Number(r.amount_micro), 0)).toBe(charged);
    expect(await gateway.settledBalanceMicro(account.accountId, before - charged)).toBe(before - charged);
    await expectCleanBooks(gateway);
  }, 60_000);
});
