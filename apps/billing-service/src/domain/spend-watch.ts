import {
  HOUR_MS,
  hourStart,
  judgeSpend,
  mayAlert,
  SLOT_MS,
  slotStart,
  SpendAlert,
  SpendRule,
  UsualSpend,
  usualSpendOf,
  WINDOW_SLOTS,
} from '@gw/money';
import { HolderEventDraft, Logger, PgHolderEvents, Queryable } from '@gw/service-kit';
import { countSpendAlert } from '../billing-metrics';
import { SpendAlertStore } from '../store/spend-alert-store';
import { SpendBooksStore } from '../store/spend-books-store';
import { KeyedCharge, SpendAlertRecord } from '../store/spend-records';

/**
 * Watches each key's spend for a leak (docs/architecture.md#a-leaked-key-caught-early), in the
 * transaction of each applied batch of bills: the batch's paid charges go into their buckets, and
 * the rule (@gw/money's SpendRule) is applied to the batch's accounts alone, so an account that
 * spends nothing costs nothing. Only an account whose last hour passed the floor (or whose key woke)
 * has its alerts and usual hour read, and its usual hour is read from its history once per clock
 * hour (kept in spend_usual).
 */
export class SpendWatch {
  constructor(
    private readonly books: SpendBooksStore,
    private readonly alerts: SpendAlertStore,
    private readonly events: Pick<PgHolderEvents, 'record'>,
    private readonly rule: SpendRule,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records the batch's charges and raises the alerts the rule finds, each with its holder event, in `tx`; the alerts raised. */
  async charged(tx: Queryable, charges: readonly KeyedCharge[]): Promise<SpendAlertRecord[]> {
    if (charges.length === 0) return [];
    await this.books.record(tx, charges);
    const nowMs = this.now();
    const accountIds = [...new Set(charges.map((c) => c.accountId))].sort();
    const recent = await this.books.recent(tx, accountIds, {
      recentFromMs: slotStart(nowMs) - (WINDOW_SLOTS - 1) * SLOT_MS,
      wokeAfterMs: nowMs - HOUR_MS,
    });
    const due = accountIds.filter((id) => {
      const r = recent.get(id);
      return r !== undefined && mayAlert({ nowMs, ...r, raised: [] }, this.rule);
    });
    if (due.length === 0) return [];
    const judged = await this.books.judged(tx, due, nowMs - this.rule.coolDownMs);
    const stale = due.filter((id) => judged.get(id)?.usual?.hourMs !== hourStart(nowMs));
    const fresh = await this.usualHours(tx, stale, nowMs);
    const found = due.flatMap((accountId): { accountId: string; alert: SpendAlert }[] => {
      const [r, j] = [recent.get(accountId), judged.get(accountId)];
      const usual = fresh.get(accountId) ?? j?.usual;
      const alert = r && j && usual && judgeSpend({ nowMs, ...r, raised: j.raised }, usual, this.rule);
      return alert ? [{ accountId, alert }] : [];
    });
    const raised = await this.alerts.raise(tx, found);
    await this.events.record(tx, ...raised.map(leakSuspected));
    return raised;
  }

  failed(err: unknown): void {
    this.logger.error("spend watch failed: the batch's bills are applied, their spend is not watched", { err });
  }

  /** Counts and logs alerts once their batch is committed. */
  committed(raised: readonly SpendAlertRecord[]): void {
    for (const a of raised) {
      countSpendAlert(a.reason);
      this.logger.warn('a key may have leaked: spend alert raised for the holder', {
        alertId: a.alertId,
        accountId: a.accountId,
        keyId: a.keyId,
        reason: a.reason,
        lastHourMicro: a.lastHourMicro,
        usualMicro: a.usualMicro,
        thresholdMicro: a.thresholdMicro,
        restedMs: a.restedMs,
      });
    }
  }

  /** The usual hour of each account at `nowMs`, read from its history and kept for the rest of the clock hour. */
  private async usualHours(tx: Queryable, accountIds: string[], nowMs: number): Promise<Map<string, UsualSpend>> {
    const usual = new Map<string, UsualSpend>();
    if (accountIds.length === 0) return usual;
    const hourMs = hourStart(nowMs);
    const history = await this.books.history(tx, accountIds, hourMs - this.rule.historyDays * 24 * HOUR_MS, hourMs);
    for (const id of accountIds) usual.set(id, usualSpendOf(history.get(id) ?? [], nowMs, this.rule));
    await this.books.keepUsual(tx, usual);
    return usual;
  }
}

const DAY_MS = 24 * HOUR_MS;

/**
 * The holder event of an alert (events.v1 KEY_LEAK_SUSPECTED): the key by its id (billing-service
 * knows no key's prefix or name), why in words, and the figures, amounts in micro-LYD.
 */
function leakSuspected(a: SpendAlertRecord): HolderEventDraft {
  const why =
    a.reason === 'idle-key'
      ? `it spent again after ${Math.floor((a.restedMs ?? 0) / DAY_MS)} days unused`
      : "the account's last hour spent far more than its usual busy hour";
  return {
    accountId: a.accountId,
    kind: 'key-leak-suspected',
    details: {
      keyId: a.keyId,
      reason: why,
      keyLastHourMicro: a.keyLastHourMicro,
      lastHourMicro: a.lastHourMicro,
      lastHourRequests: a.lastHourRequests,
      ...(a.reason === 'spend-jump' ? { usualHourMicro: a.usualMicro, thresholdMicro: a.thresholdMicro } : {}),
    },
  };
}
