import { Migration } from '@gw/service-kit';

/**
 * Every price a model ever had, with the time it came into force, so that a bill is checked
 * against the prices in force when its request was admitted; a paid bill whose prices were not
 * in force then is set aside as 'price-mismatch' instead of filed.
 *
 * billing.price_history gets a row in the transaction of each price change (billing.set_price),
 * in force from the moment the change took the version lock, so that rows of one model come into
 * force in the order of their versions. A row is in force until the next version of its model.
 * The prices of the table when this migration runs have no known start: they are taken as in
 * force since ever, so that no bill on its way during the upgrade is set aside for them.
 */
export const migration: Migration = {
  id: '036-price-history',
  sql: `
      DO $migration$ BEGIN
        CREATE TABLE billing.price_history (
          model text NOT NULL,
          version bigint NOT NULL,
          in_force_from timestamptz NOT NULL,
          input_micro_per_million bigint NOT NULL,
          output_micro_per_million bigint NOT NULL,
          PRIMARY KEY (model, version)
        );
        INSERT INTO billing.price_history (model, version, in_force_from, input_micro_per_million, output_micro_per_million)
          SELECT p.model, v.version, '-infinity', p.input_micro_per_million, p.output_micro_per_million
          FROM billing.prices p, billing.prices_version v;
        ALTER TABLE billing.set_aside_bills DROP CONSTRAINT set_aside_bills_reason_check;
        ALTER TABLE billing.set_aside_bills ADD CONSTRAINT set_aside_bills_reason_check
          CHECK (reason IN ('too-late', 'ahead', 'month-archived', 'archived-estimate', 'price-mismatch'));
      END $migration$;
    `,
};
