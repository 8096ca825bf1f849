import { Client, Pool } from 'pg';
import { Database, Listening, QueryResult } from './database';
import { counter } from '../process/metrics';

const unavailable = counter(
  'db_unavailable_total',
  'Statements and transactions PostgreSQL did not answer: unreachable, connection lost, or timed out.',
);

/** A failure of the server or the way to it (no SQLSTATE, or a connection or operator-intervention class), not of the statement. */
const isUnavailable = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('08') || code.startsWith('57');
};

async function counted<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUnavailable(err)) unavailable.inc();
    throw err;
  }
}

const statementsSent = counter(
  'db_statements_total',
  'Statements sent to PostgreSQL, BEGIN and COMMIT included (capacity planning: statements per request).',
);

// Every statement with parameters is a named prepared statement: each connection parses and
// plans it once, not on every call. Names are given per distinct text; the texts are constants.
const statementNames = new Map<string, string>();
function asStatement(text: string, values?: unknown[]) {
  statementsSent.inc();
  if (!values?.length) return { text, values };
  let name = statementNames.get(text);
  if (!name) statementNames.set(text, (name = `s${statementNames.size + 1}`));
  return { name, text, values };
}

/** A Database on a PostgreSQL server through a `pg` pool; every query has a statement timeout. */
export function openPgDatabase(url: string, options: { max?: number; statementTimeoutMs?: number } = {}): Database {
  const pool = new Pool({
    connectionString: url,
    max: options.max ?? 10,
    statement_timeout: options.statementTimeoutMs ?? 5000,
    connectionTimeoutMillis: 5000,
  });
  // A server restart surfaces here on idle clients; the pool replaces them, the next query reconnects.
  pool.on('error', () => undefined);
  const toResult = <R>(r: { rows: unknown[]; rowCount: number | null }): QueryResult<R> => ({
    rows: r.rows as R[],
    rowCount: r.rowCount ?? 0,
  });
  return {
    query: async <R>(sql: string, params?: unknown[]) => toResult<R>(await counted(() => pool.query(asStatement(sql, params)))),
    transaction: async (fn) => {
      const client = await counted(() => pool.connect());
      // A connection cut while the client is out of the pool (between two statements of the
      // transaction) is an 'error' event on the client, which would end the process unheard:
      // it is kept, and the client destroyed rather than given back.
      let broken: Error | undefined;
      const onError = (err: Error) => {
        broken = err;
      };
      client.on('error', onError);
      try {
        statementsSent.inc();
        await client.query('BEGIN');
        const result = await fn({
          query: async <R>(sql: string, params?: unknown[]) => toResult<R>(await counted(() => client.query(asStatement(sql, params)))),
        });
        statementsSent.inc();
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch((rollbackErr: Error) => {
          broken ??= rollbackErr;
        });
        throw err;
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    },
    listen: (channel, heard, lost) => listenOn(url, channel, heard, lost),
    close: () => pool.end(),
  };
}

/** LISTEN on a connection of its own (Database.listen). */
async function listenOn(url: string, channel: string, heard: () => void, lost: (err: unknown) => void): Promise<Listening> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
  const client = new Client({ connectionString: url, keepAlive: true, connectionTimeoutMillis: 5000 });
  let closed = false;
  const gone = (err: unknown) => {
    if (closed) return;
    closed = true;
    client.end().catch(() => undefined);
    lost(err);
  };
  client.on('notification', (n) => {
    if (n.channel === channel) heard();
  });
  client.on('error', gone);
  client.on('end', () => gone(new Error('connection ended')));
  try {
    await counted(() => client.connect());
    await client.query(`LISTEN ${channel}`);
  } catch (err) {
    closed = true;
    await client.end().catch(() => undefined);
    throw err;
  }
  return {
    close: async () => {
      if (closed) return;
      closed = true;
      await client.end().catch(() => undefined);
    },
  };
}
