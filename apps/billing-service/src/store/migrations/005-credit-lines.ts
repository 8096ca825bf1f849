import { Migration } from '@gw/service-kit';

/**
 * Admission in one call: each account's credit line lent to quota-service, and the
 * bills quota-service delivers in batches.
 *
 * The line is money of the balance lent to quota-service, which holds running paid requests in
 * it. `held + line <= balance` is a constraint, so whatever quota-service's store forgets, no
 * balance goes below zero. The totals only grow, and `line = granted - charged - returned`
 * always: quota-service keeps the same three totals and repairs lost or repeated messages by
 * taking the larger value. When more leaves the line than it has (a charge or a return beyond it,
 * only after quota-service's store lost writes), the part beyond it counts as lent at that moment
 * (granted grows by it), so that the identity holds and quota-service's own totals stay comparable.
 *
 * Each function is its own migration: PGlite refuses several commands in one string.
 *
 * Existing rows get a line of 0, which both constraints accept (held <= balance held before).
 */
export const migration: Migration = {
  id: '005-credit-lines',
  sql: `
      DO $migration$ BEGIN
        ALTER TABLE billing.balances
          ADD COLUMN line_micro bigint NOT NULL DEFAULT 0,
          ADD COLUMN line_granted_total bigint NOT NULL DEFAULT 0,
          ADD COLUMN line_charged_total bigint NOT NULL DEFAULT 0,
          ADD COLUMN line_returned_total bigint NOT NULL DEFAULT 0;
        ALTER TABLE billing.balances ADD CONSTRAINT line_within_balance
          CHECK (line_micro >= 0 AND held_micro + line_micro <= balance_micro) NOT VALID;
        ALTER TABLE billing.balances VALIDATE CONSTRAINT line_within_balance;
        ALTER TABLE billing.balances ADD CONSTRAINT line_is_its_totals
          CHECK (line_micro = line_granted_total - line_charged_total - line_returned_total) NOT VALID;
        ALTER TABLE billing.balances VALIDATE CONSTRAINT line_is_its_totals;
        ALTER TABLE billing.ledger
          ADD COLUMN held_micro bigint NOT NULL DEFAULT 0,
          ADD COLUMN shortfall_micro bigint NOT NULL DEFAULT 0 CHECK (shortfall_micro >= 0);
      END $migration$;
    `,
};
