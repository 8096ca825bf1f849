import { Pool } from 'pg';
import { Database, QueryResult } from './database';
import { counter } from './metrics';

const statementsSent = counter('db_statements_total', 'Statements sent to PostgreSQL, BEGIN and COMMIT included (capacity planning: statements per request).');

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
  const toResult = <R>(r: { rows: unknown[]; rowCount: number | null }): QueryResult<R> => ({ rows: r.rows as R[], rowCount: r.rowCount ?? 0 });
  return {
    query: async <R>(sql: string, params?: unknown[]) => toResult<R>(await pool.query(asStatement(sql, params))),
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        statementsSent.inc();
        await client.query('BEGIN');
        const result = await fn({ query: async <R>(sql: string, params?: unknown[]) => toResult<R>(await client.query(asStatement(sql, params))) });
        statementsSent.inc();
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
