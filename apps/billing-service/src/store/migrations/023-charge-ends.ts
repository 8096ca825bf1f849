import { Migration } from '@gw/service-kit';

/**
 * Why each billed request ended, and every correction of an estimated charge kept.
 *
 * A charge's row shows the charge as it stands; when a stalled edge's real bill replaces the
 * estimate quota-service billed from its lease, the row is corrected and the movement is written
 * to billing.charge_corrections as well (before and after), so that what an estimate took and
 * what its correction gave back or took stays on record.
 */
export const migration: Migration = {
  id: '023-charge-ends',
  sql: `
      DO $migration$ BEGIN
        ALTER TABLE billing.ledger ADD COLUMN end_reason text NOT NULL DEFAULT ''
          CHECK (end_reason IN ('', 'complete', 'caller-left', 'provider-broke-off', 'recovered'));
        CREATE TABLE billing.charge_corrections (
          request_id text NOT NULL,
          request_at timestamptz NOT NULL,
          account_id text NOT NULL,
          prompt_before bigint NOT NULL,
          completion_before bigint NOT NULL,
          amount_before bigint NOT NULL,
          shortfall_before bigint NOT NULL,
          prompt_after bigint NOT NULL,
          completion_after bigint NOT NULL,
          amount_after bigint NOT NULL,
          shortfall_after bigint NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (request_id, request_at)
        );
      END $migration$;
    `,
};
