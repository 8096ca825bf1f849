import { Client } from 'pg';

/** Resolves true when PostgreSQL at `url` accepts a connection and `SELECT 1` within `timeoutMs`; never rejects. */
export async function postgresAnswers(url: string, timeoutMs = 2000): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
