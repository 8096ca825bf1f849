import { Migration } from '@gw/service-kit';

/**
 * The `console` schema: holders (one per email, each looking after one account) with a
 * memory-hard hash of their password, one-time invitations, server-side sessions, the kinds of
 * mail each holder switched off, and the low-balance thresholds kept before billing-service kept
 * them (handed over at start, then gone: ThresholdHandover). Tokens (invitation links, session cookies) are kept only as
 * their SHA-256. Several commands go in one DO block, as PGlite refuses several commands in one
 * prepared statement.
 */
export const CONSOLE_MIGRATIONS: Migration[] = [
  {
    id: '001-holders-invites-sessions',
    sql: `
      DO $migration$ BEGIN
        CREATE TABLE console.holders (
          id text PRIMARY KEY,
          email text NOT NULL UNIQUE,
          account_id text NOT NULL,
          password_hash text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE console.invites (
          token_sha256 text PRIMARY KEY,
          email text NOT NULL,
          account_id text NOT NULL,
          expires_at timestamptz NOT NULL,
          used_at timestamptz
        );
        CREATE TABLE console.sessions (
          id_sha256 text PRIMARY KEY,
          holder_id text NOT NULL REFERENCES console.holders (id) ON DELETE CASCADE,
          csrf_token text NOT NULL,
          expires_at timestamptz NOT NULL
        );
        CREATE INDEX sessions_expires_at ON console.sessions (expires_at);
      END $migration$;
    `,
  },
  {
    // Sign-in attempts counted where every replica sees them, and the browsers a holder has
    // signed in from (only the SHA-256 of their cookie's token), which guessing does not slow.
    id: '002-sign-in-attempts-known-devices',
    sql: `
      DO $migration$ BEGIN
        CREATE TABLE console.sign_in_attempts (
          key text PRIMARY KEY,
          attempts integer NOT NULL,
          window_ends_ms bigint NOT NULL,
          next_at_ms bigint
        );
        CREATE INDEX sign_in_attempts_window_ends ON console.sign_in_attempts (window_ends_ms);
        CREATE TABLE console.known_devices (
          token_sha256 text PRIMARY KEY,
          holder_id text NOT NULL REFERENCES console.holders (id) ON DELETE CASCADE,
          expires_at timestamptz NOT NULL
        );
        CREATE INDEX known_devices_expires_at ON console.known_devices (expires_at);
      END $migration$;
    `,
  },
  {
    // The balance at or below which the account's pages show a banner: one per account (its
    // balance is the account's), set by a holder of it, in micro-LYD as billing-service keeps money.
    id: '003-low-balance-thresholds',
    sql: `
      CREATE TABLE console.low_balance_thresholds (
        account_id text PRIMARY KEY,
        threshold_micro bigint NOT NULL CHECK (threshold_micro >= 0),
        set_by text NOT NULL,
        set_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    // The kinds of mail each holder switched off (every kind is on until switched off; a security
    // kind never is: domain/mail-switches.ts).
    id: '004-mail-switches',
    sql: `
      CREATE TABLE console.mail_switches (
        holder_id text NOT NULL REFERENCES console.holders (id) ON DELETE CASCADE,
        kind text NOT NULL,
        PRIMARY KEY (holder_id, kind)
      );
    `,
  },
];
