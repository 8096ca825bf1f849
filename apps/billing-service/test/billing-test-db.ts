import { Database, openDatabase, runMigrations } from '@gw/service-kit';
import { createTestDatabase } from '@gw/testing';
import { BillingLedger } from '../src/domain/billing-ledger';
import { BILLING_MIGRATIONS } from '../src/store/billing-migrations';
import { PgBillingStore } from '../src/store/pg-billing-store';

/** A migrated billing schema in a database of its own, with the store and ledger on it. */
export interface BillingTestDb {
  url: string;
  db: Database;
  store: PgBillingStore;
  ledger: BillingLedger;
  /** Closes the pool and drops the database. */
  close(): Promise<void>;
}

/** Creates a fresh test database (see @gw/testing) and applies the billing migrations. */
export async function openBillingTestDb(): Promise<BillingTestDb> {
  const testDb = await createTestDatabase();
  const db = await openDatabase(testDb.url, '');
  await runMigrations(db, 'billing', BILLING_MIGRATIONS);
  const store = new PgBillingStore(db);
  return {
    url: testDb.url,
    db,
    store,
    ledger: new BillingLedger(store),
    close: async () => {
      try {
        await db.close();
      } finally {
        await testDb.drop();
      }
    },
  };
}

/** Resolves to the gRPC status code an RpcError (or grpc-js ServiceError) carries. */
export async function codeOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
    return undefined;
  } catch (err) {
    return (err as { code?: number }).code;
  }
}
