import { Migration } from '@gw/service-kit';

/**
 * The months from this one to the one holding p_until. Replicas at once queue on the lock; a
 * month that ledger_other already has rows of is left to it (warned), not failed on.
 */
export const migration: Migration = {
  id: '017-ensure-ledger-months',
  sql: `
      CREATE FUNCTION billing.ensure_ledger_months(p_until timestamptz) RETURNS int
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v_at timestamptz;
        v_made int := 0;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('billing.ledger months'));
        FOR v_at IN SELECT generate_series(date_trunc('month', now() AT TIME ZONE 'UTC'),
            date_trunc('month', p_until AT TIME ZONE 'UTC'), interval '1 month') AT TIME ZONE 'UTC' LOOP
          BEGIN
            IF billing.add_ledger_month(v_at) THEN v_made := v_made + 1; END IF;
          EXCEPTION WHEN check_violation THEN
            RAISE WARNING 'ledger month of % not made: ledger_other holds rows of it', v_at;
          END;
        END LOOP;
        RETURN v_made;
      END $fn$;
    `,
};
