import { Database } from './database';
import { openPgDatabase } from './pg-database';
import { openPgliteDatabase } from './pglite-database';

/** Postgres at `url` when given, else the embedded PGlite under `dataDir`. */
export function openDatabase(url: string | undefined, dataDir: string): Promise<Database> {
  return url ? Promise.resolve(openPgDatabase(url)) : openPgliteDatabase(dataDir);
}
