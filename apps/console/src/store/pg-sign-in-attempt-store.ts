import { Database, Queryable } from '@gw/service-kit';
import { AttemptBound, AttemptOutcome, SignInAttemptStore } from './sign-in-attempt-store';

interface CountRow {
  attempts: number;
  window_ends_ms: string;
  next_at_ms: string | null;
}

/** Thrown inside the transaction to roll back the counts of a refused attempt. */
class Refused extends Error {
  constructor(readonly retryAfterMs: number) {
    super('sign-in attempt refused');
  }
}

// One more attempt on a key, a fresh window when the last one has ended. The upsert locks the
// row, so attempts sent together on one key are counted one after another.
const COUNT = `
  INSERT INTO console.sign_in_attempts AS c (key, attempts, window_ends_ms) VALUES ($1, 1, $2::bigint + $3::bigint)
  ON CONFLICT (key) DO UPDATE SET
    attempts = CASE WHEN c.window_ends_ms <= $2 THEN 1 ELSE c.attempts + 1 END,
    next_at_ms = CASE WHEN c.window_ends_ms <= $2 THEN NULL ELSE c.next_at_ms END,
    window_ends_ms = CASE WHEN c.window_ends_ms <= $2 THEN EXCLUDED.window_ends_ms ELSE c.window_ends_ms END
  RETURNING attempts, window_ends_ms, next_at_ms`;

/** SignInAttemptStore on Postgres (or PGlite): one transaction per attempt. */
export class PgSignInAttemptStore implements SignInAttemptStore {
  constructor(private readonly db: Database) {}

  async take(bounds: AttemptBound[], windowMs: number, nowMs: number): Promise<AttemptOutcome> {
    try {
      await this.db.transaction(async (tx) => {
        // Bounds are locked in the order the caller gives, the same for every attempt, so two
        // attempts never wait on each other's rows.
        for (const bound of bounds) await countOne(tx, bound, windowMs, nowMs);
      });
      return { taken: true };
    } catch (err) {
      if (err instanceof Refused) return { taken: false, retryAfterMs: err.retryAfterMs };
      throw err;
    }
  }

  async settle(forget: string[], giveBack: string[], nowMs: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (forget.length) await tx.query('DELETE FROM console.sign_in_attempts WHERE key = ANY($1::text[])', [forget]);
      if (giveBack.length) {
        await tx.query(
          'UPDATE console.sign_in_attempts SET attempts = attempts - 1 WHERE key = ANY($1::text[]) AND attempts > 0 AND window_ends_ms > $2',
          [giveBack, nowMs],
        );
      }
    });
  }

  async deleteEnded(nowMs: number): Promise<void> {
    await this.db.query('DELETE FROM console.sign_in_attempts WHERE window_ends_ms <= $1 AND coalesce(next_at_ms, 0) <= $1', [nowMs]);
  }
}

async function countOne(tx: Queryable, bound: AttemptBound, windowMs: number, nowMs: number): Promise<void> {
  const row = (await tx.query<CountRow>(COUNT, [bound.key, nowMs, windowMs])).rows[0];
  if (row.attempts <= bound.limit) return;
  if (bound.slowIntervalMs === undefined) throw new Refused(Number(row.window_ends_ms) - nowMs);
  const nextAt = row.next_at_ms === null ? 0 : Number(row.next_at_ms);
  if (nextAt > nowMs) throw new Refused(nextAt - nowMs);
  await tx.query('UPDATE console.sign_in_attempts SET next_at_ms = $2 WHERE key = $1', [bound.key, nowMs + bound.slowIntervalMs]);
}
