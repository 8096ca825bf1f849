import { Migration } from '@gw/service-kit';

/**
 * The `console` schema: holders (one per email, each looking after one account) with a
 * memory-hard hash of their password, one-time invitations and server-side sessions. Tokens
 * (invitation links, session cookies) are kept only as their SHA-256. One DO block, as PGlite
 * refuses several commands in one prepared statement.
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
];
