import { Migration } from '@gw/service-kit';

/**
 * Each account's balance alerts: the low-balance threshold its holders set in the console (NULL:
 * none) and whether the balance is at or below it, and whether the balance was found unable to
 * pay for a request. Each flag makes its holder event once: `below` is cleared only when the
 * balance goes back above the threshold, `exhausted` only by a top-up (domain/balance-alerts.ts).
 * A row is locked after the account's balance row, never before.
 */
export const migration: Migration = {
  id: '039-balance-alerts',
  sql: `
      CREATE TABLE billing.balance_alerts (
        account_id text PRIMARY KEY,
        threshold_micro bigint CHECK (threshold_micro >= 0),
        below boolean NOT NULL DEFAULT false,
        exhausted boolean NOT NULL DEFAULT false,
        set_by text NOT NULL DEFAULT '',
        set_at timestamptz
      );
    `,
};
