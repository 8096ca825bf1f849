import { Client } from 'pg';
import { locateServer, type ServerLocation } from './locate-server';
import { postgresAnswers } from './postgres-answers';
import { startDockerService } from './start-docker-service';
import { uniqueToken } from './unique-token';

/** A fresh, empty PostgreSQL database owned by one test file. */
export interface TestDatabase {
  /** Connection URL of the new database (same host and credentials as the admin connection). */
  url: string;
  /** Database name, `t_<pid>_<hex>`. */
  name: string;
  /** Drops the database (closing other sessions on it) and stops any container started for it. Safe to call twice. */
  drop(): Promise<void>;
}

const LOCAL_POSTGRES_URL = 'postgres://root@127.0.0.1:5432/test';

const MISSING_POSTGRES =
  'No PostgreSQL for tests: set DATABASE_URL, or start PostgreSQL on 127.0.0.1:5432 ' +
  '(user root, trust auth, database test), or make Docker available for testcontainers';

let localPostgres: Promise<boolean> | undefined;

async function startPostgresContainer(): Promise<{ url: string; stop(): Promise<void> }> {
  const service = await startDockerService({
    image: 'postgres:16',
    port: 5432,
    env: { POSTGRES_USER: 'test', POSTGRES_PASSWORD: 'test', POSTGRES_DB: 'test' },
    readyLog: /database system is ready to accept connections/,
    readyLogTimes: 2,
  });
  return { url: `postgres://test:test@${service.host}:${service.port}/test`, stop: service.stop };
}

function locatePostgres(): Promise<ServerLocation> {
  return locateServer({
    envUrl: process.env.DATABASE_URL,
    localUrl: LOCAL_POSTGRES_URL,
    answers: (url) => (localPostgres ??= postgresAnswers(url)),
    startContainer: startPostgresContainer,
    missingMessage: MISSING_POSTGRES,
  });
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function withDatabase(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

async function runAdmin(adminUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Creates a uniquely named, empty database for one test file. The server comes from
 * `DATABASE_URL` (used as the admin connection), else local PostgreSQL at 127.0.0.1:5432 if it
 * answers within about 2 s, else a postgres:16 container when Docker is reachable. Throws an
 * Error saying what to start when none is available. Call `drop()` in `afterAll`.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = await locatePostgres();
  const name = `t_${uniqueToken('_')}`;
  try {
    await runAdmin(server.url, `CREATE DATABASE ${quoteIdentifier(name)}`);
  } catch (error) {
    await server.stop().catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Could not create test database ${name} (server from ${server.origin}): ${reason}`, { cause: error });
  }

  let dropped: Promise<void> | undefined;
  const drop = async (): Promise<void> => {
    try {
      await runAdmin(server.url, `DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
    } finally {
      await server.stop();
    }
  };
  return { url: withDatabase(server.url, name), name, drop: () => (dropped ??= drop()) };
}
