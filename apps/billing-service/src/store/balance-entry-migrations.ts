import { Migration } from '@gw/service-kit';

/**
 * Every movement of a balance is an entry, so that the audit can add them up: a paid request's charge is its ledger row;
 * every other movement (an operator's top-up or correction, and an opening entry for what each
 * balance held before entries were kept) is a row of billing.balance_entries. So, always:
 *
 *   balance = sum(balance_entries) - sum(paid ledger amounts) - sum(archived charges)
 *
 * (a month archived takes its charges out of the ledger and adds them to archived_charges).
 */
export const BALANCE_ENTRY_MIGRATIONS: Migration[] = [
  {
    id: '020-balance-entries',
    sql: `
      DO $migration$ BEGIN
        CREATE TABLE billing.balance_entries (
          id bigserial PRIMARY KEY,
          account_id text NOT NULL,
          amount_micro bigint NOT NULL,
          kind text NOT NULL CHECK (kind IN ('opening', 'top-up', 'correction')),
          reason text NOT NULL DEFAULT '',
          made_by text NOT NULL DEFAULT '',
          idempotency_key text UNIQUE,
          balance_after bigint NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX balance_entries_account ON billing.balance_entries (account_id, created_at);
        CREATE TABLE billing.archived_charges (
          account_id text PRIMARY KEY,
          amount_micro bigint NOT NULL
        );
        INSERT INTO billing.balance_entries (account_id, amount_micro, kind, reason, balance_after)
          SELECT b.account_id, b.balance_micro + coalesce(c.charged, 0), 'opening', 'the balance and its charges before entries were kept', b.balance_micro
          FROM billing.balances b
          LEFT JOIN (SELECT l.account_id, sum(l.amount_micro) AS charged FROM billing.ledger l WHERE l.paid GROUP BY l.account_id) c
            ON c.account_id = b.account_id
          WHERE b.balance_micro + coalesce(c.charged, 0) <> 0;
      END $migration$;
    `,
  },
  {
    // An operator's change in one round trip, with its entry. Under a key, the key's lock is taken
    // first and its entry looked up after it (a snapshot of its own: VOLATILE), so calls at once
    // with one key make one change and answer alike. A change refused writes nothing.
    id: '021-add-balance',
    sql: `
      CREATE FUNCTION billing.add_balance(p_account_id text, p_amount bigint, p_max bigint, p_reason text, p_made_by text,
        p_idempotency_key text, OUT outcome text, OUT balance bigint)
      LANGUAGE plpgsql VOLATILE AS $fn$
      DECLARE e billing.balance_entries;
      BEGIN
        IF p_idempotency_key IS NOT NULL THEN
          PERFORM pg_advisory_xact_lock(hashtextextended('balance-entry:' || p_idempotency_key, 0));
          SELECT * INTO e FROM billing.balance_entries x WHERE x.idempotency_key = p_idempotency_key;
          IF FOUND THEN
            outcome := CASE WHEN e.account_id = p_account_id AND e.amount_micro = p_amount THEN 'repeated' ELSE 'key-used' END;
            balance := e.balance_after;
            RETURN;
          END IF;
        END IF;
        IF p_amount >= 0 THEN
          INSERT INTO billing.balances AS b (account_id, balance_micro) VALUES (p_account_id, p_amount)
          ON CONFLICT (account_id) DO UPDATE SET balance_micro = b.balance_micro + EXCLUDED.balance_micro, updated_at = now()
            WHERE b.balance_micro + EXCLUDED.balance_micro <= p_max
          RETURNING b.balance_micro INTO balance;
        ELSE
          UPDATE billing.balances b SET balance_micro = b.balance_micro + p_amount, updated_at = now()
          WHERE b.account_id = p_account_id AND b.balance_micro + p_amount >= b.held_micro + b.line_micro AND b.balance_micro + p_amount <= p_max
          RETURNING b.balance_micro INTO balance;
        END IF;
        IF balance IS NULL THEN outcome := 'refused'; RETURN; END IF;
        INSERT INTO billing.balance_entries (account_id, amount_micro, kind, reason, made_by, idempotency_key, balance_after)
        VALUES (p_account_id, p_amount, CASE WHEN p_amount >= 0 THEN 'top-up' ELSE 'correction' END, p_reason, p_made_by, p_idempotency_key, balance);
        outcome := 'applied';
      END $fn$;
    `,
  },
  {
    // The accounts whose balance is not what their entries come to (the audit's first check).
    id: '022-balance-mismatches',
    sql: `
      CREATE FUNCTION billing.balance_mismatches() RETURNS TABLE (account_id text, balance bigint, entries bigint)
      LANGUAGE sql STABLE AS $fn$
        WITH movements AS (
          SELECT e.account_id, e.amount_micro AS amount FROM billing.balance_entries e
          UNION ALL SELECT l.account_id, -l.amount_micro FROM billing.ledger l WHERE l.paid
          UNION ALL SELECT a.account_id, -a.amount_micro FROM billing.archived_charges a),
        totals AS (SELECT m.account_id, sum(m.amount)::bigint AS entries FROM movements m GROUP BY m.account_id)
        SELECT coalesce(b.account_id, t.account_id), coalesce(b.balance_micro, 0), coalesce(t.entries, 0)
        FROM billing.balances b FULL JOIN totals t ON t.account_id = b.account_id
        WHERE coalesce(b.balance_micro, 0) <> coalesce(t.entries, 0);
      $fn$;
    `,
  },
];
