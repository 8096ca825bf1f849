import { Client as PgClient } from 'pg';
import { GatewayUnderTest, PRODUCTION_DEADLINES, startGateway, eventually } from '@gw/test-stack';

interface LedgerRow {
  amount_micro: string;
  prompt_tokens: string;
  completion_tokens: string;
  usage_estimated: boolean;
}

/** The account's ledger rows and open holds, read from billing's tables. */
async function booksOf(pg: PgClient, accountId: string): Promise<{ ledger: LedgerRow[]; holds: number; heldMicro: number }> {
  const ledger = await pg.query<LedgerRow>(
    'SELECT amount_micro::text, prompt_tokens::text, completion_tokens::text, usage_estimated FROM billing.ledger WHERE account_id = $1',
    [accountId],
  );
  const holds = await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM billing.holds WHERE account_id = $1', [accountId]);
  const balance = await pg.query<{ held: string }>('SELECT held_micro::text AS held FROM billing.balances WHERE account_id = $1', [
    accountId,
  ]);
  return { ledger: ledger.rows, holds: holds.rows[0].n, heldMicro: Number(balance.rows[0]?.held ?? 0) };
}

const ask = (text: string, extra: Record<string, unknown> = {}) => ({
  model: 'vendor-v4-flash',
  messages: [{ role: 'user', content: text }],
  max_tokens: 1000,
  ...extra,
});

/** Reads a streamed reply until some text has arrived; the rest stays unread. */
async function firstText(res: Response): Promise<string> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  while (!text.includes('"content":"')) {
    const read = await reader.read();
    if (read.done) break;
    text += new TextDecoder().decode(read.value);
  }
  return text;
}

describe('leases of running requests (docs/architecture.md#nothing-lost-when-a-process-dies): nothing lost when an edge dies or a reply outlives the hold TTL', () => {
  let gateway: GatewayUnderTest;
  let pg: PgClient;

  beforeAll(async () => {
    // Renewals every 200 ms; a lease lapses 1 s after the last one, and its request is finished
    // 1 s later (the grace); holds unrenewed for 3 s are swept (the hold TTL must exceed the lease
    // time and grace, so that an orphan's bill finds its hold).
    gateway = await startGateway({
      ...PRODUCTION_DEADLINES,
      LEASE_RENEW_MS: '200',
      LEASE_TTL_MS: '1000',
      LAPSE_GRACE_MS: '1000',
      HOLD_TTL_SECONDS: '3',
      HOLD_SWEEP_INTERVAL_MS: '100',
      SETTLE_POLL_MS: '50',
    });
    pg = new PgClient({ connectionString: gateway.stack.env.DATABASE_URL });
    await pg.connect();
  }, 90_000);
  afterAll(async () => {
    await pg?.end();
    await gateway?.stop();
  }, 60_000);

  it('bills a stream that was delivering text when its edge was killed, once, from its last renewal (estimated), and frees its hold and place', async () => {
    const account = await gateway.account('5');
    const before = await gateway.balanceMicro(account.accountId);
    const res = await gateway.chat(account.key, ask('tell me more [[sim:words=400,piece_delay_ms=40]]', { stream: true }));
    expect(res.status).toBe(200);
    expect(await firstText(res)).toContain('"content":"');
    // Long enough for a few renewals that carry the text delivered so far (20 tokens a second).
    await new Promise((r) => setTimeout(r, 1200));
    await gateway.stack.killApp('edge');

    await eventually(async () => (await booksOf(pg, account.accountId)).ledger.length > 0, { timeoutMs: 15_000 });
    await eventually(async () => (await booksOf(pg, account.accountId)).holds === 0, { timeoutMs: 5_000 });
    const books = await booksOf(pg, account.accountId);
    expect(books.ledger).toHaveLength(1);
    const [row] = books.ledger;
    expect(row.usage_estimated).toBe(true);
    expect(Number(row.prompt_tokens)).toBeGreaterThan(0);
    expect(Number(row.completion_tokens)).toBeGreaterThanOrEqual(20);
    expect(books.heldMicro).toBe(0);
    expect(before - (await gateway.balanceMicro(account.accountId))).toBe(Number(row.amount_micro));

    await gateway.stack.startApp('edge');
    // Its place is free again: three requests of the account run at once.
    const replies = await Promise.all([1, 2, 3].map(() => gateway.chat(account.key, ask('hello [[sim:delay_ms=300]]'))));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    await eventually(async () => (await booksOf(pg, account.accountId)).ledger.length === 4, { timeoutMs: 10_000 });
  });

  it('bills a reply that runs longer than the hold TTL with its reported usage: the running hold is renewed, never swept', async () => {
    const account = await gateway.account('5');
    const before = await gateway.balanceMicro(account.accountId);
    const res = await gateway.chat(account.key, ask('slow one [[sim:delay_ms=4500]]'));
    expect(res.status).toBe(200);
    const { usage } = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };

    await eventually(async () => (await booksOf(pg, account.accountId)).ledger.length > 0, { timeoutMs: 10_000 });
    const books = await booksOf(pg, account.accountId);
    expect(books.ledger).toEqual([
      {
        amount_micro: expect.any(String),
        prompt_tokens: String(usage.prompt_tokens),
        completion_tokens: String(usage.completion_tokens),
        usage_estimated: false,
      },
    ]);
    // vendor-v4-flash: 1 LYD per million prompt tokens, 4 per million completion tokens, rounded up.
    const charged = Math.ceil(usage.prompt_tokens + 4 * usage.completion_tokens);
    expect(Number(books.ledger[0].amount_micro)).toBe(charged);
    expect(before - (await gateway.balanceMicro(account.accountId))).toBe(charged);
    expect(books.holds).toBe(0);
  });
});

describe('a hold whose Authorize timed out is given back (billing-service paused past the deadline)', () => {
  let gateway: GatewayUnderTest;
  let pg: PgClient;

  beforeAll(async () => {
    gateway = await startGateway({ ...PRODUCTION_DEADLINES, SETTLE_POLL_MS: '50', SETTLE_MAX_BACKOFF_MS: '500' });
    pg = new PgClient({ connectionString: gateway.stack.env.DATABASE_URL });
    await pg.connect();
  }, 90_000);
  afterAll(async () => {
    gateway?.stack.resumeApp('billing-service');
    await pg?.end();
    await gateway?.stop();
  }, 60_000);

  it('answers 500 while billing-service is paused, then leaves no hold: the next affordable request runs', async () => {
    // 0.005 LYD covers one request of max_tokens 1000 (4,000 micro-LYD of reply plus the prompt), not two.
    const account = await gateway.account('0.005');
    gateway.stack.pauseApp('billing-service');
    let refused: Response[];
    try {
      refused = await Promise.all([1, 2, 3].map(() => gateway.chat(account.key, ask('hi'))));
      // billing-service stays paused a while after the refusals: the scenario.
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      gateway.stack.resumeApp('billing-service');
    }
    expect(refused.map((r) => r.status)).toEqual([500, 500, 500]);

    await eventually(async () => (await booksOf(pg, account.accountId)).heldMicro === 0, { timeoutMs: 15_000 });
    const res = await gateway.chat(account.key, ask('hi'));
    expect(res.status).toBe(200);
    await eventually(async () => (await booksOf(pg, account.accountId)).ledger.length === 1, { timeoutMs: 10_000 });
    expect(await booksOf(pg, account.accountId)).toMatchObject({ holds: 0, heldMicro: 0 });
  });
});
