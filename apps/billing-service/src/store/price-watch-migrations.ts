import { Migration } from '@gw/service-kit';

/** The channel billing.set_price notifies each price change on (PgPriceFeed listens). */
export const PRICE_CHANGES_CHANNEL = 'billing_price_changes';

/** A versioned price table for WatchPrices: each change gives it a higher version, announced to every replica. */
export const PRICE_WATCH_MIGRATIONS: Migration[] = [
  {
    // The price table's version, one row: WatchPrices sends it with the table and with each change.
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
  },
  {
    // SetPrice: the price and a new version of the table, announced to every replica in the same
    // transaction. The version row is locked until commit, so versions commit, and are notified
    // (Postgres delivers notifications in commit order), in the order they were given.
    id: '011-set-price',
    sql: `
      CREATE FUNCTION billing.set_price(p_model text, p_input bigint, p_output bigint) RETURNS bigint
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v bigint;
      BEGIN
        UPDATE billing.prices_version SET version = version + 1 RETURNING version INTO v;
        INSERT INTO billing.prices (model, input_micro_per_million, output_micro_per_million) VALUES (p_model, p_input, p_output)
          ON CONFLICT (model) DO UPDATE SET input_micro_per_million = EXCLUDED.input_micro_per_million,
            output_micro_per_million = EXCLUDED.output_micro_per_million, updated_at = now();
        PERFORM pg_notify('${PRICE_CHANGES_CHANNEL}',
          json_build_object('version', v, 'model', p_model, 'input', p_input, 'output', p_output)::text);
        RETURN v;
      END $fn$;
    `,
  },
];
