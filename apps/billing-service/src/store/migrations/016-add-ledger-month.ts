import { Migration } from '@gw/service-kit';

/**
 * Makes the month holding p_at, unless it exists or was archived; true when it made it.
 */
export const migration: Migration = {
  id: '016-add-ledger-month',
  sql: `
      CREATE FUNCTION billing.add_ledger_month(p_at timestamptz) RETURNS boolean
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v_month timestamp := date_trunc('month', p_at AT TIME ZONE 'UTC');
        v_name text := 'ledger_' || to_char(v_month, 'YYYY_MM');
      BEGIN
        IF to_regclass('billing.' || v_name) IS NOT NULL
          OR EXISTS (SELECT 1 FROM billing.ledger_archives a WHERE a.month = v_month::date) THEN
          RETURN false;
        END IF;
        EXECUTE format('CREATE TABLE billing.%I PARTITION OF billing.ledger FOR VALUES FROM (%L) TO (%L)',
          v_name, v_month AT TIME ZONE 'UTC', (v_month + interval '1 month') AT TIME ZONE 'UTC');
        RETURN true;
      END $fn$;
    `,
};
