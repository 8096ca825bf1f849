import { Database } from './database';

/**
 * Postgres at `url` when given, else the embedded PGlite under `dataDir`. Both are loaded on the
 * first call, so an app that never opens a database carries neither driver in its bundle.
 */
export async function openDatabase(url: string | undefined, dataDir: string): Promise<Database> {
  if (url) return (await import('./pg-database')).openPgDatabase(url);
  return (await import('./pglite-database')).openPgliteDatabase(dataDir);
}
