import { Client as PgClient } from 'pg';
import { RunningStack, StackOptions, startStack } from './start-stack';
import { createTestDatabase, createTestRedis, createTestRedisCluster, eventually, TestDatabase } from '@gw/testing';

/** A stack of its own for one test file, with what its tests keep needing. */
export interface GatewayUnderTest {
  stack: RunningStack;
  /** provider-sim's own address (no /v1), for /sim/stats. */
  simUrl: string;
  /** A new account with a key; ctl refusals fail the test. */
  account(balance?: string): Promise<{ accountId: string; key: string; keyId: string }>;
  /** Runs ctl; a refusal fails the test. */
  ctlOk<T>(...args: string[]): Promise<T>;
  /** POST /v1/chat/completions with a JSON (or raw string) body. */
  chat(key: string | undefined, body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** `usage show` of an account. */
  usage(accountId: string): Promise<{ todayTokens: number; totalTokens: number }>;
  /**
   * Polls GET /v1/usage (cheap) until the account's total tokens pass `accept`, then returns the
   * total as `usage show` tells it (the operator's view must agree).
   */
  billedTokens(account: { accountId: string; key: string }, accept: (totalTokens: number) => boolean, timeoutMs?: number): Promise<number>;
  /** The account's balance in micro-LYD. */
  balanceMicro(accountId: string): Promise<number>;
  /**
   * The balance once billing-service has applied the bills expected (they travel through
   * quota-service's outbox, after usage already shows them): polls until it is `expectedMicro`,
   * and returns the last balance read when it is not after `timeoutMs`.
   */
  settledBalanceMicro(accountId: string, expectedMicro: number, timeoutMs?: number): Promise<number>;
  simStats(): Promise<{ inFlight: number; maxInFlight: number; total: number }>;
  /** Why each of the account's billed requests ended, as the ledger records it, sorted. */
  endReasons(accountId: string): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * The services' deadlines in a stack under test unless a test sets its own: far above what a
 * loaded 2-core machine stretches a call to (bursts of hundreds of requests, several stacks at
 * once), so that a reply is the rules', not the load's. Tests of the deadlines themselves, and of
 * faults whose timing they shape, set PRODUCTION_DEADLINES.
 */
export const PATIENT_DEADLINES = { GRPC_TIMEOUT_MS: '15000', REDIS_TIMEOUT_MS: '5000' };

/** The services' own defaults, for the tests whose faults they shape. */
export const PRODUCTION_DEADLINES = { GRPC_TIMEOUT_MS: '1000', REDIS_TIMEOUT_MS: '200' };

/**
 * Starts the whole stack on a database and Redis key space of its own (on a Redis Cluster with
 * `onCluster`), with PATIENT_DEADLINES unless `env` names others; `processOptions` are passed to
 * startStack as they are.
 */
export async function startGateway(
  env: Record<string, string> = {},
  processOptions: Pick<StackOptions, 'execArgv' | 'ipc' | 'replicas' | 'quotaSpread'> = {},
  { onCluster = false } = {},
): Promise<GatewayUnderTest> {
  let db: TestDatabase | undefined;
  let redis: { cleanup(): Promise<void> } | undefined;
  let stack: RunningStack | undefined;
  env = { ...PATIENT_DEADLINES, ...env };
  const cleanup = async () => {
    await stack?.stop();
    await Promise.all([db?.drop(), redis?.cleanup()]);
  };
  try {
    db = await createTestDatabase();
    if (onCluster) {
      const cluster = await createTestRedisCluster();
      redis = cluster;
      stack = await startStack({
        databaseUrl: db.url,
        redisClusterNodes: cluster.nodes,
        redisKeyPrefix: cluster.keyPrefix,
        env,
        ...processOptions,
      });
    } else {
      const single = await createTestRedis();
      redis = single;
      stack = await startStack({ databaseUrl: db.url, redisUrl: single.url, redisKeyPrefix: single.keyPrefix, env, ...processOptions });
    }
  } catch (err) {
    await cleanup();
    throw err;
  }
  const running = stack;
  const ctlOk = async <T>(...args: string[]): Promise<T> => {
    const { json, exitCode } = await running.ctl(...args);
    if (exitCode !== 0) throw new Error(`ctl ${args.join(' ')} failed: ${JSON.stringify(json)}`);
    return json as T;
  };
  const balanceMicro = async (accountId: string) =>
    Math.round((await ctlOk<{ balance: number }>('account', 'show', '--account', accountId)).balance * 1e6);
  const simUrl = running.providerUrl.replace(/\/v1$/, '');
  return {
    stack: running,
    simUrl,
    account: async (balance = '5') => {
      const { accountId } = await ctlOk<{ accountId: string }>('account', 'create', '--balance', balance);
      const { key, id } = await ctlOk<{ key: string; id: string }>('key', 'create', '--account', accountId);
      return { accountId, key, keyId: id };
    },
    chat: (key, body, headers = {}) =>
      fetch(`${running.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    ctlOk,
    usage: (accountId) => ctlOk('usage', 'show', '--account', accountId),
    billedTokens: async ({ accountId, key }, accept, timeoutMs) => {
      const apiTotal = async () => {
        const res = await fetch(`${running.baseUrl}/usage`, { headers: { authorization: `Bearer ${key}` } });
        return ((await res.json()) as { totalTokens: number }).totalTokens;
      };
      await eventually(apiTotal, accept, { timeoutMs, what: 'billed tokens' });
      const shown = await ctlOk<{ totalTokens: number }>('usage', 'show', '--account', accountId);
      expect(shown.totalTokens).toBe(await apiTotal());
      return shown.totalTokens;
    },
    balanceMicro,
    settledBalanceMicro: (accountId, expectedMicro, timeoutMs = 10_000) =>
      eventually(
        () => balanceMicro(accountId),
        (balance) => balance === expectedMicro,
        { timeoutMs, intervalMs: 100 },
      ).catch(() => balanceMicro(accountId)),
    simStats: async () => (await (await fetch(`${simUrl}/sim/stats`)).json()) as { inFlight: number; maxInFlight: number; total: number },
    endReasons: async (accountId) => {
      const pg = new PgClient({ connectionString: (db as TestDatabase).url });
      await pg.connect();
      try {
        const { rows } = await pg.query<{ end_reason: string }>(
          'SELECT end_reason FROM billing.ledger WHERE account_id = $1 ORDER BY end_reason',
          [accountId],
        );
        return rows.map((r) => r.end_reason);
      } finally {
        await pg.end();
      }
    },
    stop: cleanup,
  };
}

/** The test timeout of a file whose tests call awayFromMinuteEnd (jest.setTimeout): the wait, up to a minute's seconds, then the test's own work. */
export const WAITS_FOR_MINUTE_MS = 90_000;

/** Waits until the current UTC minute has at least `seconds` left, so a test does not straddle two minutes. */
export async function awayFromMinuteEnd(seconds: number): Promise<void> {
  const left = 60 - ((Date.now() / 1000) % 60);
  // The wait is for the clock itself: nothing else changes when a minute turns.
  if (left < seconds) await new Promise((r) => setTimeout(r, left * 1000 + 200));
}

/** The `error` object of a JSON error reply, with the status beside it. */
export async function errorOf(
  res: Response,
): Promise<{ status: number; code: string; type: string; param: string | null; message: string } & Record<string, unknown>> {
  expect(res.headers.get('content-type')).toContain('application/json');
  const body = (await res.json()) as { error: { code: string; type: string; param: string | null; message: string } };
  return { status: res.status, ...body.error };
}

/** A body's Server-Sent Events, each `data:` payload in order, and the error that ended the read, if any. */
export async function readEvents(res: Response): Promise<{ events: string[]; error: unknown }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let error: unknown;
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) text += decoder.decode(read.value, { stream: true });
  } catch (err) {
    error = err;
  }
  const events = text
    .split('\n\n')
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice('data: '.length));
  return { events, error };
}
