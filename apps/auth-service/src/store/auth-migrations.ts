import { auditTrailKeyMigration, auditTrailMigration, holderEventsMigration, Migration } from '@gw/service-kit';

/**
 * The `auth` schema: accounts, keys (hash and prefix only), models and grants, the audit trail of
 * their changes, the holder events the notifier mails (keys created and revoked, suspensions),
 * and the index that finds the suspensions whose end has passed.
 */
export const AUTH_MIGRATIONS: Migration[] = [
  {
    id: '001-accounts-keys-models',
    sql: `
      CREATE TABLE auth.accounts (
        id text PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        suspended boolean NOT NULL DEFAULT false,
        suspended_until timestamptz,
        suspension_reason text,
        deletion_scheduled_at timestamptz
      );
      CREATE TABLE auth.api_keys (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES auth.accounts(id),
        key_sha256 text NOT NULL UNIQUE,
        prefix text NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      );
      CREATE INDEX api_keys_account ON auth.api_keys (account_id) WHERE revoked_at IS NULL;
      CREATE TABLE auth.models (
        id text PRIMARY KEY,
        vision boolean NOT NULL,
        public boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE auth.account_models (
        account_id text NOT NULL REFERENCES auth.accounts(id),
        model_id text NOT NULL REFERENCES auth.models(id),
        PRIMARY KEY (account_id, model_id)
      );
      INSERT INTO auth.models (id, vision, public) VALUES ('vendor-v4-flash', true, true), ('vendor-v4-pro', false, true);
    `,
  },
  auditTrailMigration('002-audit-trail', 'auth'),
  auditTrailKeyMigration('003-audit-trail-keyed', 'auth'),
  holderEventsMigration('004-holder-events', 'auth'),
  {
    // The suspensions with an end, by their end: the check for ended ones reads only those due.
    id: '005-suspension-ends',
    sql: 'CREATE INDEX accounts_suspension_end ON auth.accounts (suspended_until) WHERE suspended AND suspended_until IS NOT NULL',
  },
];
