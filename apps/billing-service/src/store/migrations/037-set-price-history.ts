import { Migration } from '@gw/service-kit';
import { PRICE_CHANGES_CHANNEL } from '../price-changes-channel';

/**
 * set_price of 011, writing the price's history row as well.
 */
export const migration: Migration = {
  id: '037-set-price-history',
  sql: `
      CREATE OR REPLACE FUNCTION billing.set_price(p_model text, p_input bigint, p_output bigint) RETURNS bigint
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v bigint;
      BEGIN
        UPDATE billing.prices_version SET version = version + 1 RETURNING version INTO v;
        INSERT INTO billing.prices (model, input_micro_per_million, output_micro_per_million) VALUES (p_model, p_input, p_output)
          ON CONFLICT (model) DO UPDATE SET input_micro_per_million = EXCLUDED.input_micro_per_million,
            output_micro_per_million = EXCLUDED.output_micro_per_million, updated_at = now();
        -- The clock after the version lock, not now(): a change that waited for the lock comes into force after the one before it.
        INSERT INTO billing.price_history (model, version, in_force_from, input_micro_per_million, output_micro_per_million)
          VALUES (p_model, v, clock_timestamp(), p_input, p_output);
        PERFORM pg_notify('${PRICE_CHANGES_CHANNEL}',
          json_build_object('version', v, 'model', p_model, 'input', p_input, 'output', p_output)::text);
        RETURN v;
      END $fn$;
    `,
};
