import { Database } from '@gw/service-kit';
import { KeptThreshold, KeptThresholdStore } from './kept-threshold-store';

/** KeptThresholdStore on Postgres (or PGlite). */
export class PgKeptThresholdStore implements KeptThresholdStore {
  constructor(private readonly db: Database) {}

  async kept(limit: number): Promise<KeptThreshold[]> {
    // A bigint column arrives as text (pg) or a number (PGlite); a threshold is at most MAX_MICRO_LYD, exact as a number.
    const { rows } = await this.db.query<{ account_id: string; threshold_micro: string | number; set_by: string }>(
      'SELECT account_id, threshold_micro, set_by FROM console.low_balance_thresholds ORDER BY account_id LIMIT $1',
      [limit],
    );
    return rows.map((r) => ({ accountId: r.account_id, thresholdMicro: Number(r.threshold_micro), setBy: r.set_by }));
  }

  async forget(threshold: KeptThreshold): Promise<void> {
    await this.db.query('DELETE FROM console.low_balance_thresholds WHERE account_id = $1 AND threshold_micro = $2', [
      threshold.accountId,
      threshold.thresholdMicro,
    ]);
  }
}
