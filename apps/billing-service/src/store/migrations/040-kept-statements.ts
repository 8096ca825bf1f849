import { Migration } from '@gw/service-kit';

/**
 * Holders' monthly statements, kept once their month is final: when first asked for after the
 * late-bill window, and at the latest when `ctl ledger archive` drops the month's rows (in its
 * transaction, for every account with a charge in it). A kept statement is given as it was kept,
 * byte for byte, whatever changes later (an archive, a late correction, a newer format), and the
 * next month opens at its closing balance.
 *
 * billing.kept_statement_parts holds its lines (the header through the closing row, each with its
 * line end) in parts of at most a few thousand lines, so that none is read whole into memory;
 * `sha256` is theirs, and `mac` = HMAC-SHA256(AUDIT_KEY, "statement|account|month|sha256"), so that
 * whoever can only write the database cannot have a changed statement signed.
 */
export const migration: Migration = {
  id: '040-kept-statements',
  sql: `
      DO $migration$ BEGIN
        CREATE TABLE billing.kept_statements (
          account_id text NOT NULL,
          month date NOT NULL CHECK (extract(day FROM month) = 1),
          opening_micro bigint NOT NULL,
          closing_micro bigint NOT NULL,
          movements bigint NOT NULL,
          parts int NOT NULL,
          sha256 text NOT NULL,
          mac text NOT NULL,
          kept_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (account_id, month)
        );
        CREATE TABLE billing.kept_statement_parts (
          account_id text NOT NULL,
          month date NOT NULL,
          part int NOT NULL,
          lines text NOT NULL,
          PRIMARY KEY (account_id, month, part)
        );
      END $migration$;
    `,
};
