import { Database, sampledGauge } from '@gw/service-kit';

/** Holds placed and not yet settled or released, read from the database when scraped (the same for every replica). */
export function watchHolds(db: Database): void {
  sampledGauge('billing_holds_open', 'Holds on balances not yet settled or released (all replicas share them).', async () => {
    const { rows } = await db.query<{ open: number }>('SELECT count(*)::int AS open FROM billing.holds');
    return rows[0].open;
  });
}
