import { Database, HolderEventDraft, PgHolderEvents, Queryable } from '@gw/service-kit';
import { afterBalanceMove, afterUncovered, BalanceAlertState, isLowBalance, NO_ALERTS, withThreshold } from '../domain/balance-alerts';
import { Int8, toSafeInt } from './pg-billing-rows';
import { ThresholdReading, ThresholdStore } from './threshold-store';

interface AlertRow {
  account_id: string;
  threshold_micro: Int8 | null;
  below: boolean | null;
  exhausted: boolean | null;
  balance_micro: Int8 | null;
}

/** An account's alerts as kept, and its balance (0 and `funded` false when it never had money). */
interface Alerts {
  state: BalanceAlertState;
  balanceMicro: number;
  funded: boolean;
}

const toAlerts = (r: AlertRow): Alerts => ({
  state: {
    thresholdMicro: r.threshold_micro === null ? undefined : toSafeInt(r.threshold_micro),
    below: r.below ?? false,
    exhausted: r.exhausted ?? false,
  },
  balanceMicro: r.balance_micro === null ? 0 : toSafeInt(r.balance_micro),
  funded: r.balance_micro !== null,
});

const same = (a: BalanceAlertState, b: BalanceAlertState) =>
  a.thresholdMicro === b.thresholdMicro && a.below === b.below && a.exhausted === b.exhausted;

/**
 * The holder events money makes (top-ups, low and exhausted balances), each recorded in the
 * transaction that moved the money, with each account's balance alerts (billing.balance_alerts)
 * behind the last two: the rules are domain/balance-alerts.ts'. An account's alerts
 * are read and written only by a transaction that holds its balance row's lock (a caller that
 * moved the balance holds it; setThreshold takes it first), so they change one after the other.
 */
export class PgBalanceEvents implements ThresholdStore {
  constructor(
    private readonly db: Database,
    private readonly events: PgHolderEvents,
  ) {}

  /**
   * `tx` changed the account's balance by an operator's `amountMicro` (to `balanceMicro`): a
   * top-up-credited event for a positive one, then the alerts as after any move.
   */
  async balanceChanged(tx: Queryable, accountId: string, amountMicro: number, balanceMicro: number): Promise<void> {
    if (amountMicro > 0) await this.events.record(tx, { accountId, kind: 'top-up-credited', details: { amountMicro, balanceMicro } });
    await this.balancesMoved(tx, [accountId], amountMicro > 0);
  }

  /**
   * After `tx` moved these accounts' balances (a top-up when `toppedUp`): their alerts, and a
   * low-balance event for each balance that has just fallen to or below its threshold.
   */
  async balancesMoved(tx: Queryable, accountIds: readonly string[], toppedUp: boolean): Promise<void> {
    if (accountIds.length === 0) return;
    const kept = await this.read(tx, accountIds);
    const drafts: HolderEventDraft[] = [];
    const changed = new Map<string, BalanceAlertState>();
    for (const [accountId, { state, balanceMicro }] of kept) {
      const next = afterBalanceMove(state, balanceMicro, toppedUp);
      if (!same(state, next.state)) changed.set(accountId, next.state);
      if (next.fellBelow)
        drafts.push({ accountId, kind: 'low-balance', details: { balanceMicro, thresholdMicro: state.thresholdMicro ?? null } });
    }
    await this.save(tx, changed);
    await this.events.record(tx, ...drafts);
  }

  /**
   * `tx` found these accounts' balances unable to pay for a request: a balance-exhausted event for
   * each that had money, once until a top-up.
   */
  async uncovered(tx: Queryable, accountIds: readonly string[]): Promise<void> {
    if (accountIds.length === 0) return;
    const kept = await this.read(tx, accountIds);
    const drafts: HolderEventDraft[] = [];
    const changed = new Map<string, BalanceAlertState>();
    for (const [accountId, { state, balanceMicro, funded }] of kept) {
      const next = afterUncovered(state);
      // An account that never had money is not told its balance ran out: it is on the free tier.
      if (!next.exhausted || !funded) continue;
      changed.set(accountId, next.state);
      drafts.push({ accountId, kind: 'balance-exhausted', details: { balanceMicro } });
    }
    await this.save(tx, changed);
    await this.events.record(tx, ...drafts);
  }

  setThreshold(accountId: string, thresholdMicro: number | undefined, keepExisting: boolean, setBy: string): Promise<number | undefined> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM billing.balances WHERE account_id = $1 FOR UPDATE', [accountId]);
      const { state, balanceMicro } = (await this.read(tx, [accountId])).get(accountId) ?? { state: NO_ALERTS, balanceMicro: 0 };
      if (keepExisting && state.thresholdMicro !== undefined) return state.thresholdMicro;
      await this.save(tx, new Map([[accountId, withThreshold(state, thresholdMicro, balanceMicro)]]), setBy);
      return thresholdMicro;
    });
  }

  async threshold(accountId: string): Promise<ThresholdReading> {
    const { rows } = await this.db.query<{ threshold_micro: Int8 | null; balance_micro: Int8 | null }>(
      `SELECT (SELECT threshold_micro FROM billing.balance_alerts WHERE account_id = $1) AS threshold_micro,
              (SELECT balance_micro FROM billing.balances WHERE account_id = $1) AS balance_micro`,
      [accountId],
    );
    const thresholdMicro = rows[0].threshold_micro === null ? undefined : toSafeInt(rows[0].threshold_micro);
    const balanceMicro = rows[0].balance_micro === null ? 0 : toSafeInt(rows[0].balance_micro);
    return { thresholdMicro, balanceMicro, low: isLowBalance(balanceMicro, thresholdMicro) };
  }

  /** The alerts and balances of these accounts (NO_ALERTS where none are kept), in account order. */
  private async read(tx: Queryable, accountIds: readonly string[]): Promise<Map<string, Alerts>> {
    const { rows } = await tx.query<AlertRow>(
      `SELECT k.account_id, a.threshold_micro, a.below, a.exhausted, b.balance_micro
       FROM unnest($1::text[]) AS k(account_id)
         LEFT JOIN billing.balances b ON b.account_id = k.account_id
         LEFT JOIN billing.balance_alerts a ON a.account_id = k.account_id
       ORDER BY k.account_id`,
      [[...new Set(accountIds)]],
    );
    return new Map(rows.map((r) => [r.account_id, toAlerts(r)]));
  }

  private async save(tx: Queryable, states: Map<string, BalanceAlertState>, setBy?: string): Promise<void> {
    if (states.size === 0) return;
    const rows = [...states];
    await tx.query(
      `INSERT INTO billing.balance_alerts AS a (account_id, threshold_micro, below, exhausted, set_by, set_at)
       SELECT u.account_id, u.threshold_micro, u.below, u.exhausted, coalesce($5, ''), CASE WHEN $5::text IS NULL THEN NULL ELSE now() END
       FROM unnest($1::text[], $2::bigint[], $3::boolean[], $4::boolean[]) AS u(account_id, threshold_micro, below, exhausted)
       ON CONFLICT (account_id) DO UPDATE SET threshold_micro = EXCLUDED.threshold_micro, below = EXCLUDED.below,
         exhausted = EXCLUDED.exhausted, set_by = CASE WHEN $5::text IS NULL THEN a.set_by ELSE EXCLUDED.set_by END,
         set_at = coalesce(EXCLUDED.set_at, a.set_at)`,
      [
        rows.map(([id]) => id),
        rows.map(([, s]) => s.thresholdMicro ?? null),
        rows.map(([, s]) => s.below),
        rows.map(([, s]) => s.exhausted),
        setBy ?? null,
      ],
    );
  }
}
