import { Database } from '@gw/service-kit';
import { LowBalanceStore } from './low-balance-store';

/** LowBalanceStore on Postgres (or PGlite). */
export class PgLowBalanceStore implements LowBalanceStore {
  constructor(private readonly db: Database) {}

  async threshold(accountId: string): Promise<number | undefined> {
    // A bigint column arrives as text (pg) or a number (PGlite); a threshold is at most MAX_MICRO_LYD, exact as a number.
    const { rows } = await this.db.query<{ threshold_micro: string | number }>(
      'SELECT threshold_micro FROM console.low_balance_thresholds WHERE account_id = $1',
      [accountId],
    );
    return rows[0] ? Number(rows[0].threshold_micro) : undefined;
  }

  async setThreshold(accountId: string, thresholdMicro: number | undefined, holderId: string): Promise<void> {
    if (thresholdMicro === undefined) {
      await this.db.query('DELETE FROM console.low_balance_thresholds WHERE account_id = $1', [accountId]);
      return;
    }
    await this.db.query(
      `INSERT INTO console.low_balance_thresholds (account_id, threshold_micro, set_by) VALUES ($1, $2, $3)
       ON CONFLICT (account_id) DO UPDATE SET threshold_micro = EXCLUDED.threshold_micro, set_by = EXCLUDED.set_by, set_at = now()`,
      [accountId, thresholdMicro, holderId],
    );
  }
}
