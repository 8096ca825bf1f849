import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Database, Queryable, QueryResult } from './database';

interface PgliteQueryable {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
}

function wrap(q: PgliteQueryable): Queryable {
  return {
    query: async <R>(sql: string, params?: unknown[]): Promise<QueryResult<R>> => {
      const r = await q.query<R>(sql, params);
      return { rows: r.rows, rowCount: r.affectedRows || r.rows.length };
    },
  };
}

/**
 * The embedded default: a PGlite database kept in `dataDir`, so nothing is lost across restarts.
 * One process only may open a data directory.
 */
export async function openPgliteDatabase(dataDir: string): Promise<Database> {
  mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);
  return {
    ...wrap(db),
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    close: () => db.close(),
  };
}
