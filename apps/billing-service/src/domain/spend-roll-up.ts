import { HOUR_MS, SPEND_RULE } from '@gw/money';
import { Logger, PeriodicTask } from '@gw/service-kit';
import { SpendBooksStore } from '../store/spend-books-store';

const ROLL_UP_EVERY_MS = 10 * 60_000;
/** The 5-minute buckets kept before they are rolled up into hours: the last hour is all the rule reads of them, and an hour more. */
const SLOTS_KEPT_MS = 2 * HOUR_MS;
/** The hourly buckets kept: the rule's history and a week more. */
const HOURS_KEPT_MS = (SPEND_RULE.historyDays + 7) * 24 * HOUR_MS;

/**
 * Every 10 minutes, rolls the 5-minute spend buckets older than 2 hours up into their hours and drops
 * the hours older than the rule reads (every replica may: each bucket moves once).
 */
export function startSpendRollUp(books: SpendBooksStore, logger: Logger, now: () => number = Date.now): PeriodicTask {
  const task = new PeriodicTask(() => books.rollUp(now() - SLOTS_KEPT_MS, now() - HOURS_KEPT_MS), {
    intervalMs: ROLL_UP_EVERY_MS,
    failed: (err) => logger.warn('spend buckets not rolled up, will retry', { err }),
  });
  task.start();
  return task;
}
