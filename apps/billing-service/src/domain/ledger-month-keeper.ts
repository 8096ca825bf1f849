import { Logger, PeriodicTask } from '@gw/service-kit';
import { LedgerMonthsStore } from '../store/ledger-months-store';

/** Months made ahead of the one running, so that a bill never waits for its month. */
export const LEDGER_MONTHS_AHEAD = 2;

const KEEP_EVERY_MS = 6 * 3600_000;

/** Makes the ledger's coming months now and every few hours (every replica may: they queue on a lock). */
export async function startLedgerMonthKeeper(store: LedgerMonthsStore, logger: Logger): Promise<PeriodicTask> {
  const keep = async () => {
    const made = await store.ensureMonths(LEDGER_MONTHS_AHEAD);
    if (made > 0) logger.info('ledger months made', { made });
  };
  await keep();
  const task = new PeriodicTask(keep, {
    intervalMs: KEEP_EVERY_MS,
    failed: (err) => logger.warn('making ledger months failed, will retry', { err }),
  });
  task.start();
  return task;
}
