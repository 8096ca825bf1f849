import { Database } from './database';

/** One schema change, applied once, in id order. */
export interface Migration {
  id: string;
  sql: string;
}

/**
 * Applies the migrations of `schema` that are not applied yet, all in one transaction under an
 * advisory lock, so replicas starting at once apply each migration exactly once.
 */
export async function runMigrations(db: Database, schema: string, migrations: Migration[]): Promise<string[]> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`migrations:${schema}`]);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await tx.query(`CREATE TABLE IF NOT EXISTS ${schema}.migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await tx.query<{ id: string }>(`SELECT id FROM ${schema}.migrations`)).rows.map((r) => r.id));
    const applied: string[] = [];
    for (const m of [...migrations].sort((a, b) => a.id.localeCompare(b.id))) {
      if (done.has(m.id)) continue;
      await tx.query(m.sql);
      await tx.query(`INSERT INTO ${schema}.migrations (id) VALUES ($1)`, [m.id]);
      applied.push(m.id);
    }
    return applied;
  });
}
