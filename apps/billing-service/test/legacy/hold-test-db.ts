import { HoldLedger } from '../../src/legacy/domain/hold-ledger';
import { PgHoldStore } from '../../src/legacy/store/pg-hold-store';
import { BillingTestDb, openBillingTestDb, testMoneyLinks } from '../billing-test-db';

/** A migrated billing schema with the older release's holds on it beside the current store and ledger. */
export interface HoldTestDb extends BillingTestDb {
  holdStore: PgHoldStore;
  holds: HoldLedger;
}

/** Creates a fresh test database (openBillingTestDb) with the hold store and ledger on it. */
export async function openHoldTestDb(): Promise<HoldTestDb> {
  const t = await openBillingTestDb();
  const holdStore = new PgHoldStore(t.db, testMoneyLinks());
  return { ...t, holdStore, holds: new HoldLedger(holdStore) };
}
