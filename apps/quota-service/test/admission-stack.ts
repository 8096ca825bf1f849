import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { billingV1, quotaV1 } from '@gw/contracts';
import {
  CallStreamClient,
  clientChain,
  createLogger,
  Database,
  Env,
  GrpcSecurity,
  openDatabase,
  renderMetrics,
  RpcClient,
  rpcClient,
} from '@gw/service-kit';
import { createTestDatabase, createTestRedis, eventually, TestDatabase, TestRedis } from '@gw/testing';
import { loadConfig } from '../src/config';
import { QuotaApp, startQuotaApp } from '../src/quota-app';
import { admitRequest } from './store-contracts/admission-fixtures';
import { BillingProcess, startBillingProcess } from './billing-process';

export const DEADLINE_MS = 5000;
const INSECURE: GrpcSecurity = { kind: 'insecure' };
const SETTINGS = { timeoutMs: DEADLINE_MS, chain: clientChain() };
const silent = createLogger('quota-service-test', 'error', () => undefined);

/** One quota-service replica and the edge's two ways to call it. */
export interface QuotaReplica {
  app: QuotaApp;
  /** Unary calls; `quota.streams` is the generated client. */
  quota: RpcClient<quotaV1.QuotaClient, quotaV1.QuotaService>;
  /** EdgeCalls, as the edge sends its per-request calls. */
  edge: CallStreamClient<quotaV1.EdgeCall['request'], quotaV1.EdgeAnswer['response']>;
}

/** One ledger row, as the tests read it. */
export interface LedgerRow {
  amount: number;
  paid: boolean;
  estimated: boolean;
  prompt: number;
  completion: number;
}

export { admitRequest };

/**
 * Real Redis, real Postgres and a real billing-service process (the built bundle), and
 * quota-service replicas started in this process on them, each over gRPC on port 0.
 */
export class AdmissionStack {
  redis!: TestRedis;
  billing!: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  private testDb!: TestDatabase;
  private db!: Database;
  private billingService!: BillingProcess;
  private readonly replicas: QuotaReplica[] = [];

  async start(): Promise<void> {
    [this.redis, this.testDb] = await Promise.all([createTestRedis(), createTestDatabase()]);
    this.billingService = await startBillingProcess(this.testDb.url);
    this.billing = rpcClient(billingV1.BillingClient, this.billingService.address, INSECURE, 'billing-service', SETTINGS);
    this.db = await openDatabase(this.testDb.url, '');
  }

  /** Where the stack's billing-service answers (plain text on loopback). */
  get billingAddress(): string {
    return this.billingService.address;
  }

  async stop(): Promise<void> {
    for (const r of this.replicas) {
      r.edge.close();
      r.quota.close();
      await r.app.stop();
    }
    this.billing?.close();
    await this.db?.close();
    await this.billingService?.stop();
    await Promise.all([this.redis?.cleanup(), this.testDb?.drop()]);
  }

  /** A quota-service replica on the stack, holding the price table once it answers. */
  async replica(env: Env = {}): Promise<QuotaReplica> {
    const config = loadConfig({
      QUOTA_METRICS_PORT: '0',
      QUOTA_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GRPC_INSECURE: 'true',
      REDIS_URL: this.redis.url,
      REDIS_KEY_PREFIX: this.redis.keyPrefix,
      BILLING_ADDR: this.billingService.address,
      SETTLE_POLL_MS: '20',
      SETTLE_MAX_BACKOFF_MS: '100',
      SHUTDOWN_GRACE_MS: '1000',
      ...env,
    });
    const app = await startQuotaApp(config, silent);
    const quota = rpcClient(quotaV1.QuotaClient, `127.0.0.1:${app.port}`, INSECURE, 'quota-service', SETTINGS);
    const edge = new CallStreamClient<quotaV1.EdgeCall['request'], quotaV1.EdgeAnswer['response']>(() => quota.streams.edgeCalls(), {
      streams: 2,
      rotateMs: 60_000,
    });
    const replica = { app, quota, edge };
    this.replicas.push(replica);
    // The replica prices requests once its price watch has the table (a paid Admit is UNAVAILABLE until then).
    await eventually(
      async () => {
        const probe = admitRequest(`probe_${randomUUID()}`, `probe_${randomUUID()}`, { model: 'vendor-v4-pro' });
        return quota.admit(probe).then(
          () => true,
          (err: { code?: number }) => err.code !== status.UNAVAILABLE,
        );
      },
      { intervalMs: 20, what: 'quota-service holding the price table' },
    );
    return replica;
  }

  /** Stops one replica of the stack now (the stack's stop then leaves it). */
  async stopReplica(replica: QuotaReplica): Promise<void> {
    this.replicas.splice(this.replicas.indexOf(replica), 1);
    replica.edge.close();
    replica.quota.close();
    await replica.app.stop();
  }

  async addBalance(accountId: string, amountMicroLyd: number): Promise<number> {
    return (await this.billing.addBalance({ accountId, amountMicroLyd })).balanceMicroLyd;
  }

  /** The account's line as billing-service keeps it. */
  async line(accountId: string): Promise<{ balance: number; line: number; granted: number; charged: number; returned: number }> {
    const { rows } = await this.db.query<{ balance: number; line: number; granted: number; charged: number; returned: number }>(
      `SELECT balance_micro::float8 AS balance, line_micro::float8 AS line, line_granted_total::float8 AS granted,
              line_charged_total::float8 AS charged, line_returned_total::float8 AS returned
         FROM billing.balances WHERE account_id = $1`,
      [accountId],
    );
    return rows[0];
  }

  async ledger(requestId: string): Promise<LedgerRow[]> {
    const { rows } = await this.db.query<LedgerRow>(
      `SELECT amount_micro::int AS amount, paid, usage_estimated AS estimated, prompt_tokens::int AS prompt, completion_tokens::int AS completion
         FROM billing.ledger WHERE request_id = $1`,
      [requestId],
    );
    return rows;
  }

  /** The key the ledger says a request was made with (null when its bill named none), or undefined without a row. */
  async ledgerKey(requestId: string): Promise<string | null | undefined> {
    const { rows } = await this.db.query<{ key_id: string | null }>('SELECT key_id FROM billing.ledger WHERE request_id = $1', [requestId]);
    return rows[0]?.key_id;
  }

  /** Why the ledger says a request ended ('' when not recorded), or undefined without a row. */
  async endReason(requestId: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ end_reason: string }>('SELECT end_reason FROM billing.ledger WHERE request_id = $1', [
      requestId,
    ]);
    return rows[0]?.end_reason;
  }

  /** Waits (at most 10 s) until `read` answers `expected`, then asserts it. */
  async expectEventually<T>(read: () => Promise<T>, expected: T): Promise<void> {
    const same = (value: T) => JSON.stringify(value) === JSON.stringify(expected);
    expect(await eventually(read, same, { intervalMs: 20 }).catch(() => read())).toEqual(expected);
  }
}

/** The value of a quota-service counter in this process (the replicas of a test share its registry), summed over the labels given. */
export async function counterValue(name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await renderMetrics();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) sum += Number(line.split(' ').pop());
  }
  return sum;
}

/**
 * Waits, when the clock minute ends within `marginMs`, for the next one to begin: a test that
 * counts requests reads the counts of one minute (Redis's clock is this host's).
 */
export async function awayFromMinuteEnd(marginMs = 5000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  // The wait is for the clock itself: nothing else changes when a minute turns.
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
}
