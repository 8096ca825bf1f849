import { Migration } from '@gw/service-kit';

/**
 * A running request's hold is renewed with its lease (RenewHolds); the sweeper releases a
 * hold only when it was neither placed nor renewed within the TTL.
 */
export const migration: Migration = {
  id: '004-hold-renewals',
  sql: `
      DO $migration$ BEGIN
        ALTER TABLE billing.holds ADD COLUMN renewed_at timestamptz NOT NULL DEFAULT now();
        CREATE INDEX holds_renewed_at ON billing.holds (renewed_at);
        DROP INDEX billing.holds_created_at;
      END $migration$;
    `,
};
