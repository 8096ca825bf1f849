import { Migration } from '@gw/service-kit';

/**
 A versioned price table for WatchPrices: each change gives it a higher version, announced to every replica.
 *
 * The price table's version, one row: WatchPrices sends it with the table and with each change.
 */
export const migration: Migration = {
  id: '010-prices-version',
  sql: `
      DO $migration$ BEGIN
        CREATE TABLE billing.prices_version (
          only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
          version bigint NOT NULL
        );
        INSERT INTO billing.prices_version (version) VALUES (1);
      END $migration$;
    `,
};
