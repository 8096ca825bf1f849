import { Migration } from '@gw/service-kit';

/**
 * A balance is read back as a JavaScript number, exact only up to 2^53 - 1; addBalance's
 * statements refuse to go past it, and this is the backstop. NOT VALID: a row already past it
 * (written before this check) must not stop the service from starting; every later write of
 * that row is checked, so a negative balance add can still bring it back.
 */
export const migration: Migration = {
  id: '003-balance-within-safe-range',
  sql: `
      ALTER TABLE billing.balances ADD CONSTRAINT balance_within_safe_range
        CHECK (balance_micro >= 0 AND balance_micro <= 9007199254740991) NOT VALID;
    `,
};
