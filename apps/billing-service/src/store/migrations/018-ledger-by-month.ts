import { Migration } from '@gw/service-kit';

/**
 * Moves the ledger as it stands into the months, row for row, in the migration's transaction.
 */
export const migration: Migration = {
  id: '018-ledger-by-month',
  sql: `
      DO $migration$
      DECLARE v_at timestamptz;
      BEGIN
        ALTER TABLE billing.ledger RENAME TO ledger_unpartitioned;
        ALTER TABLE billing.ledger_unpartitioned RENAME CONSTRAINT ledger_pkey TO ledger_unpartitioned_pkey;
        ALTER INDEX billing.ledger_account RENAME TO ledger_unpartitioned_account;
        CREATE TABLE billing.ledger (
          LIKE billing.ledger_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS,
          request_at timestamptz NOT NULL,
          PRIMARY KEY (request_id, request_at)
        ) PARTITION BY RANGE (request_at);
        CREATE INDEX ledger_account ON billing.ledger (account_id, created_at);
        CREATE TABLE billing.ledger_other PARTITION OF billing.ledger DEFAULT;
        FOR v_at IN SELECT DISTINCT date_trunc('month', coalesce(billing.uuid7_time(l.request_id), l.created_at) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
            FROM billing.ledger_unpartitioned l LOOP
          PERFORM billing.add_ledger_month(v_at);
        END LOOP;
        PERFORM billing.ensure_ledger_months(now() + interval '2 months');
        INSERT INTO billing.ledger SELECT l.*, coalesce(billing.uuid7_time(l.request_id), l.created_at) FROM billing.ledger_unpartitioned l;
        DROP TABLE billing.ledger_unpartitioned;
      END $migration$;
    `,
};
