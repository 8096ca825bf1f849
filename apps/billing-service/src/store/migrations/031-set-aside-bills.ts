import { Migration } from '@gw/service-kit';

/**
 * A bill is filed under the month quota-service admitted its request (its store's clock), not the
 * time inside the billing id the edge made; a bill too far from billing-service's clock is set
 * aside for the operator instead of filed, and the request ids an archive drops stay findable.
 *
 * billing.set_aside_bills keeps each set-aside bill whole (one row per request id, the bill with
 * reported usage rather than an estimate when both came) until the operator files it (charged
 * under the month it is filed in) or writes it off; the decision stays on the row, so that a bill
 * of the same request arriving later is neither filed again nor charged.
 *
 * billing.archived_requests keeps each request id an archive dropped, with what its row charged:
 * a bill of one of them is not charged again ("repeated"), and a real usage that would correct an
 * archived estimate is set aside for the operator to see.
 */
export const migration: Migration = {
  id: '031-set-aside-bills',
  sql: `
      DO $migration$ BEGIN
        CREATE TABLE billing.set_aside_bills (
          request_id text PRIMARY KEY,
          account_id text NOT NULL,
          reason text NOT NULL CHECK (reason IN ('too-late', 'ahead', 'month-archived', 'archived-estimate')),
          admitted_at timestamptz NOT NULL,
          model text NOT NULL,
          paid boolean NOT NULL,
          prompt_tokens bigint NOT NULL,
          completion_tokens bigint NOT NULL,
          usage_estimated boolean NOT NULL,
          held_micro bigint NOT NULL,
          input_micro_per_million bigint NOT NULL,
          output_micro_per_million bigint NOT NULL,
          charge_micro bigint NOT NULL,
          end_reason text NOT NULL DEFAULT '',
          deliveries int NOT NULL DEFAULT 1,
          set_aside_at timestamptz NOT NULL DEFAULT now(),
          decision text CHECK (decision IN ('filed', 'written-off')),
          decided_by text,
          decided_reason text,
          decided_at timestamptz,
          filed_at timestamptz,
          CHECK ((decision = 'filed') = (filed_at IS NOT NULL))
        );
        CREATE INDEX set_aside_bills_open ON billing.set_aside_bills (set_aside_at, request_id) WHERE decision IS NULL;
        CREATE TABLE billing.archived_requests (
          request_id text PRIMARY KEY,
          request_at timestamptz NOT NULL,
          account_id text NOT NULL,
          paid boolean NOT NULL,
          usage_estimated boolean NOT NULL,
          amount_micro bigint NOT NULL,
          shortfall_micro bigint NOT NULL
        );
      END $migration$;
    `,
};
