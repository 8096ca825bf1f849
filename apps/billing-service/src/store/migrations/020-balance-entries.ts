import { Migration } from '@gw/service-kit';

/**
 * Every movement of a balance is an entry, so that the audit can add them up: a paid request's charge is its ledger row;
 * every other movement (an operator's top-up or correction, and an opening entry for what each
 * balance held before entries were kept) is a row of billing.balance_entries. So, always:
 *
 *   balance = sum(balance_entries) - sum(paid ledger amounts) - sum(archived charges)
 *
 * (a month archived takes its charges out of the ledger and adds them to archived_charges).
 */
export const migration: Migration = {
  id: '020-balance-entries',
  sql: `
      DO $migration$ BEGIN
        CREATE TABLE billing.balance_entries (
          id bigserial PRIMARY KEY,
          account_id text NOT NULL,
          amount_micro bigint NOT NULL,
          kind text NOT NULL CHECK (kind IN ('opening', 'top-up', 'correction')),
          reason text NOT NULL DEFAULT '',
          made_by text NOT NULL DEFAULT '',
          idempotency_key text UNIQUE,
          balance_after bigint NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX balance_entries_account ON billing.balance_entries (account_id, created_at);
        CREATE TABLE billing.archived_charges (
          account_id text PRIMARY KEY,
          amount_micro bigint NOT NULL
        );
        INSERT INTO billing.balance_entries (account_id, amount_micro, kind, reason, balance_after)
          SELECT b.account_id, b.balance_micro + coalesce(c.charged, 0), 'opening', 'the balance and its charges before entries were kept', b.balance_micro
          FROM billing.balances b
          LEFT JOIN (SELECT l.account_id, sum(l.amount_micro) AS charged FROM billing.ledger l WHERE l.paid GROUP BY l.account_id) c
            ON c.account_id = b.account_id
          WHERE b.balance_micro + coalesce(c.charged, 0) <> 0;
      END $migration$;
    `,
};
