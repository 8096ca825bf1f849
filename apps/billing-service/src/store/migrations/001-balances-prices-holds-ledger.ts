import { Migration } from '@gw/service-kit';

/**
 * The `billing` schema: balances, prices, open holds and the ledger. Money columns are BIGINT
 * micro-LYD. The row invariant `0 <= held_micro <= balance_micro` means what is held is really
 * there, so no settle can take a balance below zero.
 *
 * The statements are wrapped in one DO block because PGlite sends every query as a prepared
 * statement, which refuses several commands in one string.
 */
export const migration: Migration = {
  id: '001-balances-prices-holds-ledger',
  sql: `
      DO $migration$ BEGIN
        CREATE TABLE billing.balances (
          account_id text PRIMARY KEY,
          balance_micro bigint NOT NULL DEFAULT 0,
          held_micro bigint NOT NULL DEFAULT 0,
          updated_at timestamptz NOT NULL DEFAULT now(),
          CONSTRAINT held_within_balance CHECK (held_micro >= 0 AND held_micro <= balance_micro)
        );
        CREATE TABLE billing.prices (
          model text PRIMARY KEY,
          input_micro_per_million bigint NOT NULL CHECK (input_micro_per_million >= 0),
          output_micro_per_million bigint NOT NULL CHECK (output_micro_per_million >= 0),
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE billing.holds (
          request_id text PRIMARY KEY,
          account_id text NOT NULL,
          model text NOT NULL,
          amount_micro bigint NOT NULL CHECK (amount_micro >= 0),
          input_micro_per_million bigint NOT NULL,
          output_micro_per_million bigint NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX holds_created_at ON billing.holds (created_at);
        CREATE TABLE billing.ledger (
          request_id text PRIMARY KEY,
          account_id text NOT NULL,
          model text NOT NULL,
          prompt_tokens bigint NOT NULL,
          completion_tokens bigint NOT NULL,
          input_micro_per_million bigint NOT NULL,
          output_micro_per_million bigint NOT NULL,
          amount_micro bigint NOT NULL CHECK (amount_micro >= 0),
          paid boolean NOT NULL DEFAULT true,
          usage_estimated boolean NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX ledger_account ON billing.ledger (account_id, created_at);
        INSERT INTO billing.prices (model, input_micro_per_million, output_micro_per_million) VALUES
          ('vendor-v4-flash', 1000000, 4000000),
          ('vendor-v4-pro', 4000000, 16000000);
      END $migration$;
    `,
};
