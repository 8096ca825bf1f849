import { HOUR_MS, SPEND_RULE } from '@gw/money';
import { Logger, PeriodicTask } from '@gw/service-kit';
import { SpendBooksStore } from '../store/spend-books-store';

const PRUNE_EVERY_MS = 10 * 60_000;
/** The 5-minute buckets kept: the last hour is all the rule reads of them, and an hour more for bills that come late. */
const SLOTS_KEPT_MS = 2 * HOUR_MS;
/** The hourly buckets kept: the rule's history and a week more. */
const HOURS_KEPT_MS = (SPEND_RULE.historyDays + 7) * 24 * HOUR_MS;

/** Drops spend buckets older than the rule reads, every 10 minutes (every replica may: a delete of what is gone deletes nothing). */
export function startSpendPruner(books: SpendBooksStore, logger: Logger, now: () => number = Date.now): PeriodicTask {
  const task = new PeriodicTask(() => books.prune(now() - SLOTS_KEPT_MS, now() - HOURS_KEPT_MS), {
    intervalMs: PRUNE_EVERY_MS,
    failed: (err) => logger.warn('old spend buckets not dropped, will retry', { err }),
  });
  task.start();
  return task;
}
