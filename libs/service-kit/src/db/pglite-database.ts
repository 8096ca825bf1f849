import { mkdirSync } from 'node:fs';
import { Database, Queryable, QueryResult } from './database';

interface PgliteResult<R> {
  rows: R[];
  affectedRows?: number;
}
interface PgliteQueryable {
  query<R>(sql: string, params?: unknown[]): Promise<PgliteResult<R>>;
  exec(sql: string): Promise<PgliteResult<unknown>[]>;
}

// Parameterless SQL goes through exec, which (unlike a prepared statement) takes several statements,
// as migrations have; the last statement's result is returned, as pg does.
function wrap(q: PgliteQueryable): Queryable {
  return {
    query: async <R>(sql: string, params?: unknown[]): Promise<QueryResult<R>> => {
      const r = params?.length ? await q.query<R>(sql, params) : ((await q.exec(sql)).at(-1) as PgliteResult<R> | undefined);
      return { rows: r?.rows ?? [], rowCount: r ? r.affectedRows || r.rows.length : 0 };
    },
  };
}

/**
 * The embedded default: a PGlite database kept in `dataDir`, so nothing is lost across restarts.
 * One process only may open a data directory.
 */
export async function openPgliteDatabase(dataDir: string): Promise<Database> {
  mkdirSync(dataDir, { recursive: true });
  // Loaded here, not at the top: PGlite serves only local runs without DATABASE_URL, and the
  // images leave it out.
  const { PGlite } = await import('@electric-sql/pglite').catch(() => {
    throw new Error('no DATABASE_URL, and the embedded PGlite is not installed here: set DATABASE_URL');
  });
  const db = await PGlite.create(dataDir);
  return {
    ...wrap(db),
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    // One process holds the embedded database: whatever notifies it is heard here.
    listen: async (channel, heard) => {
      const stop = await db.listen(channel, () => heard());
      return { close: () => stop() };
    },
    close: () => db.close(),
  };
}
