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
 *
 * Months archived before this migration left no rows to list: statements begin with the month
 * after the last of them (billing.statements_begin, no row when none was archived), and each
 * account's charges archived then, as first billed (its archived charges less the corrections of
 * their estimates, which stay movements of the months they were made in), are taken from its
 * first statement's opening (billing.charged_before_statements).
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
        CREATE TABLE billing.statements_begin (month date PRIMARY KEY);
        INSERT INTO billing.statements_begin (month)
          SELECT (max(a.month) + interval '1 month')::date FROM billing.ledger_archives a HAVING count(*) > 0;
        CREATE TABLE billing.charged_before_statements (
          account_id text PRIMARY KEY,
          amount_micro bigint NOT NULL
        );
        INSERT INTO billing.charged_before_statements (account_id, amount_micro)
          SELECT a.account_id, a.amount_micro - coalesce((SELECT sum(k.amount_after - k.amount_before) FROM billing.charge_corrections k
            WHERE k.account_id = a.account_id AND k.request_at < (SELECT b.month FROM billing.statements_begin b)), 0)
          FROM billing.archived_charges a;
      END $migration$;
    `,
};
