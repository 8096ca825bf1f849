import { Migration } from '@gw/service-kit';

/**
 * The ledger partitioned by month, so that a month can be archived and dropped whole.
 *
 * Postgres makes a key unique across partitions only when it holds the partition key, so the
 * partition key must be the same for every bill of one request id: `request_at`, the time a
 * UUIDv7 billing id carries (the edge makes them). An id of another form (older edges, rows from
 * before this migration) takes the `request_at` of its row when it has one, else the time of its
 * first bill, under an advisory lock on the id so that two first bills at once agree. The key
 * (request_id, request_at) then holds each request id at most once in the whole ledger.
 *
 * A month is a partition named ledger_YYYY_MM (UTC), made ahead of time; a row outside them (an
 * edge's clock far off) lands in ledger_other. An archived month is recorded in ledger_archives
 * and never made again; a bill of it is taken as already applied.
 */
export const migration: Migration = {
  id: '013-uuid7-time',
  sql: `
      CREATE FUNCTION billing.uuid7_time(p_id text) RETURNS timestamptz
      LANGUAGE sql IMMUTABLE STRICT AS $fn$
        SELECT CASE WHEN p_id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
          THEN timestamptz 'epoch' + ('x' || lpad(substr(p_id, 1, 8) || substr(p_id, 10, 4), 16, '0'))::bit(64)::bigint
            * interval '1 millisecond' END;
      $fn$;
    `,
};
