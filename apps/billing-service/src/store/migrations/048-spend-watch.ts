import { Migration } from '@gw/service-kit';

/**
 * What billing-service keeps to catch a leaked key (docs/architecture.md#a-leaked-key-caught-early),
 * written in the transaction that applies a batch of bills, a few rows per account and key (the
 * 5-minute buckets with room in their pages, as each is rewritten by several batches):
 * - spend_slots: each key's paid spend and requests per 5 minutes (the last hour is read from
 *   them), rolled up after 2 hours into spend_hours, the same per hour, kept 42 days (the history
 *   of an account's usual hour); a bill counts at its request's admitted time, a key '' for bills
 *   that named none;
 * - spend_keys: each key's first and last billed time (the last a few minutes behind at most), and
 *   when it was last billed after a rest of an hour or more (woke_at) with that rest;
 * - spend_usual: each account's usual hour as last read (it holds for the clock hour it was read in)
 *   and each key's share of the spend it was read from;
 * - spend_alerts: the alerts raised, open until dismissed or their key is revoked.
 *
 * They start from the ledger, so that an account's first hour after the upgrade is measured
 * against the weeks it spent before (empty, every usual hour is 0 and the bar the 1 LYD floor):
 * the paid rows of the last 42 days (the rule's history and a week, as spend-roll-up keeps; in the
 * month partitions they fall in) go in, as the watch would have counted them, in one statement
 * that reads the ledger once. A row's amount is what it took from the balance after any
 * correction (the sum of the watch's charges of its request), a paid request each, at its
 * request_at, its key '' when it names none (every row before 045): the last 2 hours in
 * spend_slots (the last hour is read from them), the hours before in spend_hours, and each key's
 * first and last bill of those days in spend_keys (no wake: a key is woken by its next bill after
 * a rest, as the watch records it).
 */
export const migration: Migration = {
  id: '048-spend-watch',
  sql: `
      DO $migration$ BEGIN
        CREATE TABLE billing.spend_slots (
          account_id text NOT NULL,
          slot_at timestamptz NOT NULL,
          key_id text NOT NULL,
          spend_micro bigint NOT NULL,
          requests bigint NOT NULL,
          PRIMARY KEY (account_id, slot_at, key_id)
        ) WITH (fillfactor = 70);
        CREATE INDEX spend_slots_at ON billing.spend_slots (slot_at);
        CREATE TABLE billing.spend_hours (
          account_id text NOT NULL,
          hour_at timestamptz NOT NULL,
          key_id text NOT NULL,
          spend_micro bigint NOT NULL,
          requests bigint NOT NULL,
          PRIMARY KEY (account_id, hour_at, key_id)
        );
        CREATE INDEX spend_hours_at ON billing.spend_hours (hour_at);
        CREATE TABLE billing.spend_keys (
          account_id text NOT NULL,
          key_id text NOT NULL,
          first_billed_at timestamptz NOT NULL,
          last_billed_at timestamptz NOT NULL,
          woke_at timestamptz,
          rested_ms bigint,
          PRIMARY KEY (account_id, key_id)
        );
        CREATE TABLE billing.spend_usual (
          account_id text PRIMARY KEY,
          hour_at timestamptz NOT NULL,
          usual_micro bigint NOT NULL,
          history_hours int NOT NULL,
          key_shares jsonb NOT NULL
        );
        CREATE TABLE billing.spend_alerts (
          alert_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          account_id text NOT NULL,
          key_id text NOT NULL,
          reason text NOT NULL CHECK (reason IN ('spend-jump', 'idle-key')),
          raised_at timestamptz NOT NULL DEFAULT now(),
          last_hour_micro bigint NOT NULL,
          last_hour_requests bigint NOT NULL,
          key_last_hour_micro bigint NOT NULL,
          usual_micro bigint NOT NULL,
          history_hours int NOT NULL,
          threshold_micro bigint NOT NULL,
          rested_ms bigint,
          closed_at timestamptz,
          closing text CHECK (closing IN ('dismissed', 'key-revoked')),
          closed_by text,
          CHECK ((closed_at IS NULL) = (closing IS NULL))
        );
        CREATE INDEX spend_alerts_account ON billing.spend_alerts (account_id, raised_at);
        CREATE INDEX spend_alerts_open ON billing.spend_alerts (raised_at) WHERE closed_at IS NULL;
        WITH spent AS (
          SELECT account_id, coalesce(key_id, '') AS key_id, date_bin('5 minutes', request_at, timestamptz 'epoch') AS slot_at,
            sum(amount_micro) AS spend, count(*) AS requests, min(request_at) AS first_at, max(request_at) AS last_at
          FROM billing.ledger WHERE paid AND request_at >= now() - interval '42 days'
          GROUP BY 1, 2, 3),
        slots AS (
          INSERT INTO billing.spend_slots (account_id, slot_at, key_id, spend_micro, requests)
          SELECT account_id, slot_at, key_id, spend, requests FROM spent WHERE slot_at >= now() - interval '2 hours'),
        hours AS (
          INSERT INTO billing.spend_hours (account_id, hour_at, key_id, spend_micro, requests)
          SELECT account_id, date_bin('1 hour', slot_at, timestamptz 'epoch'), key_id, sum(spend), sum(requests) FROM spent
          WHERE slot_at < now() - interval '2 hours' GROUP BY 1, 2, 3)
        INSERT INTO billing.spend_keys (account_id, key_id, first_billed_at, last_billed_at)
        SELECT account_id, key_id, min(first_at), max(last_at) FROM spent GROUP BY 1, 2;
      END $migration$;
    `,
};
