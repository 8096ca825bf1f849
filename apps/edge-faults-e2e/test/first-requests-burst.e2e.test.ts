import { Client as PgClient } from 'pg';
import { createFundedAccounts, FundedAccount, GatewayUnderTest, RunningStack, scrapeMetrics, startGateway } from '@gw/test-stack';
import { eventually } from '@gw/testing';

const ACCOUNTS = 1000;

/**
 * An account's first paid request finds no credit line at quota-service, which asks billing-service
 * for one. A thousand accounts doing so at once (as right after a deploy, or a morning's first
 * traffic) are served: their line extensions go to billing-service in a few batched calls rather
 * than a thousand unary calls and transactions. How fast is the bench's business, not this test's:
 * on a loaded 2-core machine a thousand requests at once take seconds end to end, so the gRPC
 * deadline and quota-service's Redis timeout here are far above their defaults (1 s, 200 ms),
 * and every request must still be answered 200.
 */
describe('the first paid requests of 1,000 accounts at once', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  let pg: PgClient;
  let accounts: FundedAccount[];

  beforeAll(async () => {
    gw = await startGateway({ SETTLE_POLL_MS: '50', LOG_LEVEL: 'warn' });
    stack = gw.stack;
    pg = new PgClient({ connectionString: stack.env.DATABASE_URL });
    await pg.connect();
    accounts = await createFundedAccounts(stack, ACCOUNTS + 1, 1_000_000);
  }, 90_000);

  afterAll(async () => {
    await pg?.end();
    await gw?.stop();
  }, 60_000);

  const chat = (key: string) =>
    fetch(`${stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vendor-v4-flash', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    }).then(async (res) => {
      await res.arrayBuffer();
      return res.status;
    });

  /** Ledger rows of these accounts, and of how many distinct requests. */
  const ledger = async (ids: string[]) =>
    (
      await pg.query<{ n: number; requests: number }>(
        'SELECT count(*)::int AS n, count(DISTINCT request_id)::int AS requests FROM billing.ledger WHERE account_id = ANY($1)',
        [ids],
      )
    ).rows[0];

  /** quota-service's ExtendCreditLines calls and the lines they carried; billing-service's ExtendCreditLine calls. */
  const lineCalls = async () => {
    const [quota, billing] = await Promise.all([
      scrapeMetrics(stack.metricsUrls['quota-service']),
      scrapeMetrics(stack.metricsUrls['billing-service']),
    ]);
    return {
      calls: quota.value('quota_credit_line_batch_size_count'),
      lines: quota.value('quota_credit_line_batch_size_sum'),
      unary: billing.value('grpc_server_handling_seconds_count', { method: 'ExtendCreditLine' }),
    };
  };

  it('answers every one 200 and bills each once, with far fewer line calls to billing-service than accounts', async () => {
    // One account first, alone: connections open and the price table held, so that the burst measures admission.
    const [warm, ...burst] = accounts;
    expect(await chat(warm.key)).toBe(200);
    // The edge knows every key already (GET /v1/models: not counted, no line drawn), as it knows
    // those of accounts in use when quota-service is deployed: the burst is their first paid request.
    for (let i = 0; i < burst.length; i += 100) {
      const known = await Promise.all(
        burst.slice(i, i + 100).map((a) => fetch(`${stack.baseUrl}/models`, { headers: { authorization: `Bearer ${a.key}` } })),
      );
      expect(known.map((res) => res.status)).toEqual(known.map(() => 200));
      await Promise.all(known.map((res) => res.arrayBuffer()));
    }
    const before = await lineCalls();

    const started = Date.now();
    const statuses = await Promise.all(burst.map((a) => chat(a.key)));
    const ms = Date.now() - started;
    const tally = statuses.reduce<Record<number, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {});
    const after = await lineCalls();
    const calls = after.calls - before.calls;
    console.info(
      `${ACCOUNTS} first paid requests at once: ${ms} ms, statuses ${JSON.stringify(tally)}, ${calls} ExtendCreditLines calls for ${after.lines - before.lines} lines`,
    );

    expect(tally).toEqual({ 200: ACCOUNTS });
    // Every account's line was drawn through the batches (one line each), none by a unary call.
    expect(after.lines - before.lines).toBe(ACCOUNTS);
    expect(after.unary).toBe(before.unary);
    // At once, one call each would have been a thousand; batched they are a few to a hundred or so (as the Admits arrive).
    expect(calls).toBeLessThanOrEqual(ACCOUNTS / 4);
    const ids = burst.map((a) => a.accountId);
    expect(
      await eventually(
        () => ledger(ids),
        (books) => books.n >= ACCOUNTS,
        { timeoutMs: 15_000, intervalMs: 100 },
      ),
    ).toEqual({
      n: ACCOUNTS,
      requests: ACCOUNTS,
    });
  }, 60_000);
});
