import { auditTrailMigration, Migration } from '@gw/service-kit';
import { BALANCE_ENTRY_MIGRATIONS } from './balance-entry-migrations';
import { CHARGE_END_MIGRATIONS } from './charge-end-migrations';
import { CREDIT_LINE_MIGRATIONS } from './credit-line-migrations';
import { LEDGER_MONTH_MIGRATIONS } from './ledger-month-migrations';
import { MONEY_LINK_MIGRATIONS } from './money-link-migrations';
import { PRICE_HISTORY_MIGRATIONS } from './price-history-migrations';
import { PRICE_WATCH_MIGRATIONS } from './price-watch-migrations';
import { SET_ASIDE_MIGRATIONS } from './set-aside-migrations';

/**
 * The `billing` schema: balances, prices, open holds and the ledger. Money columns are BIGINT
 * micro-LYD. The row invariant `0 <= held_micro <= balance_micro` means what is held is really
 * there, so no settle can take a balance below zero.
 *
 * The statements are wrapped in one DO block because PGlite sends every query as a prepared
 * statement, which refuses several commands in one string.
 */
export const BILLING_MIGRATIONS: Migration[] = [
  {
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
  },
  {
    // The common case of Authorize in one round trip: a new request id whose hold the balance
    // covers, or does not. The caller priced the hold from its copy of the price: when that is
    // no longer the model's price, 'price-changed' and nothing done. The id already held or
    // settled answers 'known' and changes nothing, for the caller's full transaction to sort out.
    id: '002-place-hold-function',
    sql: `
      CREATE FUNCTION billing.place_hold(p_request_id text, p_account_id text, p_model text, p_amount bigint,
        p_input bigint, p_output bigint, OUT outcome text, OUT balance bigint, OUT held_by_others bigint)
      LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM FROM billing.prices pr
          WHERE pr.model = p_model AND pr.input_micro_per_million = p_input AND pr.output_micro_per_million = p_output;
        IF NOT FOUND THEN outcome := 'price-changed'; RETURN; END IF;
        INSERT INTO billing.holds (request_id, account_id, model, amount_micro, input_micro_per_million, output_micro_per_million)
        VALUES (p_request_id, p_account_id, p_model, p_amount, p_input, p_output) ON CONFLICT (request_id) DO NOTHING;
        IF NOT FOUND THEN outcome := 'known'; RETURN; END IF;
        -- Checked after the insert, which waited for any settle of this id that was committing.
        IF EXISTS (SELECT 1 FROM billing.ledger l WHERE l.request_id = p_request_id) THEN
          DELETE FROM billing.holds h WHERE h.request_id = p_request_id;
          outcome := 'known'; RETURN;
        END IF;
        IF p_amount = 0 THEN
          INSERT INTO billing.balances (account_id) VALUES (p_account_id) ON CONFLICT (account_id) DO NOTHING;
        END IF;
        UPDATE billing.balances b SET held_micro = b.held_micro + p_amount, updated_at = now()
          WHERE b.account_id = p_account_id AND b.balance_micro - b.held_micro >= p_amount
          RETURNING b.balance_micro, b.held_micro - p_amount INTO balance, held_by_others;
        IF FOUND THEN outcome := 'held'; RETURN; END IF;
        DELETE FROM billing.holds h WHERE h.request_id = p_request_id;
        SELECT b.balance_micro, b.held_micro INTO balance, held_by_others FROM billing.balances b WHERE b.account_id = p_account_id;
        outcome := 'refused';
        balance := coalesce(balance, 0);
        held_by_others := coalesce(held_by_others, 0);
      END $fn$;
    `,
  },
  {
    // A balance is read back as a JavaScript number, exact only up to 2^53 - 1; addBalance's
    // statements refuse to go past it, and this is the backstop. NOT VALID: a row already past it
    // (written before this check) must not stop the service from starting; every later write of
    // that row is checked, so a negative balance add can still bring it back.
    id: '003-balance-within-safe-range',
    sql: `
      ALTER TABLE billing.balances ADD CONSTRAINT balance_within_safe_range
        CHECK (balance_micro >= 0 AND balance_micro <= 9007199254740991) NOT VALID;
    `,
  },
  {
    // A running request's hold is renewed with its lease (RenewHolds); the sweeper releases a
    // hold only when it was neither placed nor renewed within the TTL.
    id: '004-hold-renewals',
    sql: `
      DO $migration$ BEGIN
        ALTER TABLE billing.holds ADD COLUMN renewed_at timestamptz NOT NULL DEFAULT now();
        CREATE INDEX holds_renewed_at ON billing.holds (renewed_at);
        DROP INDEX billing.holds_created_at;
      END $migration$;
    `,
  },
  ...CREDIT_LINE_MIGRATIONS,
  ...PRICE_WATCH_MIGRATIONS,
  ...LEDGER_MONTH_MIGRATIONS,
  ...BALANCE_ENTRY_MIGRATIONS,
  ...CHARGE_END_MIGRATIONS,
  // Who changed what (balances, prices, the free tier), each entry chained to the one before it.
  auditTrailMigration('030-audit-trail', 'billing'),
  ...SET_ASIDE_MIGRATIONS,
  // Every balance movement covered by a link of the chain, each link keyed.
  ...MONEY_LINK_MIGRATIONS,
  // Every price a model had, for checking each bill against the prices in force when it was admitted.
  ...PRICE_HISTORY_MIGRATIONS,
];
