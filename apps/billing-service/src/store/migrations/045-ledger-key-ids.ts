import { Migration } from '@gw/service-kit';

/**
 * Each bill names the API key its request was made with (billing.v1 Bill.key_id, fixed at Admit):
 * the ledger and the set-aside bills keep it, NULL for bills that came without one (an older edge
 * or quota-service, and every bill before this).
 */
export const migration: Migration = {
  id: '045-ledger-key-ids',
  sql: `
      DO $migration$ BEGIN
        ALTER TABLE billing.ledger ADD COLUMN key_id text;
        ALTER TABLE billing.set_aside_bills ADD COLUMN key_id text;
      END $migration$;
    `,
};
