import { Metadata, status } from '@grpc/grpc-js';
import { Client as PgClient } from 'pg';
import { billingV1 } from '@gw/contracts';
import {
  clientChain,
  createLogger,
  Database,
  Env,
  grpcCodeOf,
  openDatabase,
  PgAuditTrail,
  PgHolderEvents,
  RpcClient,
  rpcClient,
  runMigrations,
} from '@gw/service-kit';
import { createTestDatabase, eventually } from '@gw/testing';
import { BillingApp, startBillingApp } from '../src/billing-app';
import { BillingConfig, loadConfig } from '../src/config';
import { BillingLedger } from '../src/domain/billing-ledger';
import { LocalPriceFeed } from '../src/domain/price-feed';
import { PriceWatchHub } from '../src/domain/price-watch-hub';
import { BILLING_MIGRATIONS } from '../src/store/migrations/billing-migrations';
import { PgBalanceEvents } from '../src/store/pg-balance-events';
import { PgBillingStore } from '../src/store/pg-billing-store';
import { PgMoneyLinks } from '../src/store/pg-money-links';

/** The audit chain's key in these tests (AUDIT_KEY of the apps started here). */
export const TEST_AUDIT_KEY = 'the billing tests audit key, 32 characters or more';

/** The links of the billing schema, keyed with TEST_AUDIT_KEY. */
export const testMoneyLinks = (): PgMoneyLinks => new PgMoneyLinks(new PgAuditTrail('billing', Buffer.from(TEST_AUDIT_KEY)));

/** A migrated billing schema in a database of its own, with the store and ledger on it. */
export interface BillingTestDb {
  url: string;
  db: Database;
  store: PgBillingStore;
  ledger: BillingLedger;
  /** Closes the pool and drops the database. */
  close(): Promise<void>;
}

/** Creates a fresh test database (see @gw/testing) and applies the billing migrations. */
export async function openBillingTestDb(): Promise<BillingTestDb> {
  const testDb = await createTestDatabase();
  const db = await openDatabase(testDb.url, '');
  await runMigrations(db, 'billing', BILLING_MIGRATIONS);
  const store = new PgBillingStore(db, testMoneyLinks(), new PgBalanceEvents(db, new PgHolderEvents('billing')));
  return {
    url: testDb.url,
    db,
    store,
    ledger: new BillingLedger(store, await LocalPriceFeed.start(store, new PriceWatchHub(1000))),
    close: async () => {
      try {
        await db.close();
      } finally {
        await testDb.drop();
      }
    },
  };
}

/** A client of a billing-service replica: a call per unary method, the generated client in `streams`. */
export type BillingTestClient = RpcClient<billingV1.BillingClient, billingV1.BillingService>;

/** Replicas of billing-service on one test database of their own, each with a client, and a pool for reading its state. */
export interface BillingTestApps {
  url: string;
  db: Database;
  apps: BillingApp[];
  clients: BillingTestClient[];
  /** Closes the clients, stops the replicas and drops the database. */
  close(): Promise<void>;
}

/** The settings of a test replica on the database at `url`: plain-text gRPC and metrics on ports of loopback; `env` adds to them. */
export const billingTestConfig = (url: string, env: Env = {}): Readonly<BillingConfig> =>
  loadConfig({
    BILLING_METRICS_PORT: '0',
    BILLING_PORT: '0',
    BIND_HOST: '127.0.0.1',
    GRPC_INSECURE: 'true',
    DATABASE_URL: url,
    SHUTDOWN_GRACE_MS: '500',
    AUDIT_KEY: TEST_AUDIT_KEY,
    ...env,
  });

/** Starts a replica with `config`, logging errors only. */
export const startBillingTestApp = (config: Readonly<BillingConfig>): Promise<BillingApp> =>
  startBillingApp(
    config,
    createLogger('billing-service', 'error', () => undefined),
  );

/** A client of the replica `app`, its calls with `timeoutMs` unless they give their own. */
export const billingTestClient = (app: BillingApp, timeoutMs: number): BillingTestClient =>
  rpcClient(billingV1.BillingClient, `127.0.0.1:${app.port}`, { kind: 'insecure' }, 'billing-service', {
    timeoutMs,
    chain: clientChain(),
  });

/**
 * Starts `count` replicas over plain-text gRPC on loopback, on a fresh test database; `env` adds
 * to their settings; each client's calls have `timeoutMs` unless they give their own.
 */
export async function startBillingTestApps(count: number, env: Env, timeoutMs: number): Promise<BillingTestApps> {
  const testDb = await createTestDatabase();
  const config = billingTestConfig(testDb.url, env);
  const apps: BillingApp[] = [];
  for (let i = 0; i < count; i++) apps.push(await startBillingTestApp(config));
  const clients = apps.map((app) => billingTestClient(app, timeoutMs));
  const db = await openDatabase(testDb.url, '');
  return {
    url: testDb.url,
    db,
    apps,
    clients,
    close: async () => {
      for (const client of clients) client.close();
      try {
        await db.close();
        await Promise.all(apps.map((app) => app.stop()));
      } finally {
        await testDb.drop();
      }
    },
  };
}

/** An account's statement of a month read over billing.v1 ReadStatement: its text and, when the call failed, its status code. */
export async function readStatement(client: BillingTestClient, accountId: string, month: string): Promise<{ text: string; code?: status }> {
  const call = client.streams.readStatement({ accountId, month }, new Metadata(), { deadline: Date.now() + 10_000 });
  let text = '';
  try {
    for await (const part of call as AsyncIterable<billingV1.ReadStatementResponse>) text += part.text;
    return { text };
  } catch (err) {
    return { text, code: (err as { code: status }).code };
  }
}

/** Resolves to the gRPC status code a refusal stands for (a domain refusal's by its kind, or a grpc-js ServiceError's). */
export async function codeOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
    return undefined;
  } catch (err) {
    return grpcCodeOf(err);
  }
}

/**
 * Runs `work` (two calls) while another transaction holds what `lockSql` locks, and lets go once
 * both calls wait for it: so both run at once, each from before the other committed anything.
 */
export async function heldApart<T>(
  t: Pick<BillingTestApps, 'url' | 'db'>,
  lockSql: string,
  params: unknown[],
  work: () => Promise<T>,
): Promise<T> {
  const blocker = new PgClient({ connectionString: t.url });
  await blocker.connect();
  try {
    await blocker.query('BEGIN');
    await blocker.query(lockSql, params);
    const running = work();
    const waiting = "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";
    await eventually(async () => (await t.db.query<{ n: number }>(waiting)).rows[0].n >= 2, {
      intervalMs: 10,
      what: 'two statements waiting on the lock',
    });
    await blocker.query('ROLLBACK');
    return await running;
  } finally {
    await blocker.end();
  }
}
