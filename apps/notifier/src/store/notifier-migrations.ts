import { Migration } from '@gw/service-kit';

/**
 * The `notifier` schema: where each service's event stream is resumed from, the events taken
 * (one row per service and event id: a repeated delivery finds its row and mails nothing again),
 * and the mails, each with its state: kept (no mail server: the console shows it), pending
 * (waiting for its next try, claimed by a replica while it sends), sent, or failed (given up).
 */
export const NOTIFIER_MIGRATIONS: Migration[] = [
  {
    id: '001-cursors-events-mails',
    sql: `
      CREATE TABLE notifier.cursors (
        source text PRIMARY KEY,
        cursor text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE notifier.taken_events (
        source text NOT NULL,
        event_id bigint NOT NULL,
        account_id text NOT NULL,
        kind text NOT NULL,
        event_at timestamptz NOT NULL,
        taken_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (source, event_id)
      );
      CREATE TABLE notifier.mails (
        id bigserial PRIMARY KEY,
        message_id text NOT NULL UNIQUE,
        source text NOT NULL,
        event_id bigint NOT NULL,
        account_id text NOT NULL,
        kind text NOT NULL,
        event_at timestamptz NOT NULL,
        recipient text NOT NULL,
        subject text NOT NULL,
        body text NOT NULL,
        state text NOT NULL CHECK (state IN ('kept', 'pending', 'sent', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        claimed_until timestamptz,
        sent_at timestamptz,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        FOREIGN KEY (source, event_id) REFERENCES notifier.taken_events (source, event_id)
      );
      CREATE INDEX mails_due ON notifier.mails (next_attempt_at) WHERE state = 'pending';
      CREATE INDEX mails_account ON notifier.mails (account_id, event_at DESC, id DESC);
    `,
  },
];
