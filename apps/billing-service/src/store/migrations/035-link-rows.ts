import { Migration } from '@gw/service-kit';

export const migration: Migration = {
  id: '035-link-rows',
  sql: `
      DO $migration$ BEGIN
        CREATE TABLE billing.link_rows (
          link_seq bigint NOT NULL,
          n int NOT NULL,
          kind text NOT NULL CHECK (kind IN ('entry', 'charge', 'archive')),
          account_id text NOT NULL,
          request_id text,
          entry_id bigint,
          amount_micro bigint NOT NULL,
          PRIMARY KEY (link_seq, n)
        );
        CREATE INDEX link_rows_request ON billing.link_rows (request_id) WHERE request_id IS NOT NULL;
        CREATE INDEX link_rows_entry ON billing.link_rows (entry_id) WHERE entry_id IS NOT NULL;
      END $migration$;
    `,
};
