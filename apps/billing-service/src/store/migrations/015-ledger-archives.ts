import { Migration } from '@gw/service-kit';

export const migration: Migration = {
  id: '015-ledger-archives',
  sql: `
      CREATE TABLE billing.ledger_archives (
        month date PRIMARY KEY,
        rows bigint NOT NULL,
        amount_micro bigint NOT NULL,
        sha256 text NOT NULL,
        archived_at timestamptz NOT NULL DEFAULT now()
      );
    `,
};
