import { Migration } from '@gw/service-kit';
import { PRICE_CHANGES_CHANNEL } from '../price-changes-channel';

/**
 * SetPrice: the price and a new version of the table, announced to every replica in the same
 * transaction. The version row is locked until commit, so versions commit, and are notified
 * (Postgres delivers notifications in commit order), in the order they were given.
 */
export const migration: Migration = {
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
};
