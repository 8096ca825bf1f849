import { Migration } from '@gw/service-kit';

/**
 * VOLATILE: its lookup takes a snapshot of its own, after the lock, so it sees the row of a
 * first bill that committed while this one waited.
 */
export const migration: Migration = {
  id: '014-ledger-time',
  sql: `
      CREATE FUNCTION billing.ledger_time(p_request_id text) RETURNS timestamptz
      LANGUAGE plpgsql VOLATILE AS $fn$
      DECLARE t timestamptz := billing.uuid7_time(p_request_id);
      BEGIN
        IF t IS NOT NULL THEN RETURN t; END IF;
        PERFORM pg_advisory_xact_lock(hashtextextended('ledger:' || p_request_id, 0));
        SELECT l.request_at INTO t FROM billing.ledger l WHERE l.request_id = p_request_id LIMIT 1;
        RETURN coalesce(t, now());
      END $fn$;
    `,
};
