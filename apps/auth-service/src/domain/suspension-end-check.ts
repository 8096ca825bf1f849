import { AuditActor, Logger, PeriodicTask } from '@gw/service-kit';
import { IdentityStore } from '../store/identity-store';

/** Suspensions ended per transaction; a full batch is followed by the next at once. */
const BATCH = 100;

/** Who ends a suspension at its end time, as the audit trail records it: the service itself. */
export const SUSPENSION_END_ACTOR: AuditActor = { actor: 'auth-service', reason: '' };

/**
 * Every `intervalMs`, ends the suspensions whose end time has passed (IdentityStore.endDueSuspensions):
 * the account was already served again from that time on (isSuspendedNow); this clears the row and
 * tells its holders that the suspension ended. Every replica may run it: each end is told once.
 */
export function startSuspensionEndCheck(store: IdentityStore, intervalMs: number, logger: Logger): PeriodicTask {
  const task = new PeriodicTask(
    async () => {
      const ended = await store.endDueSuspensions(BATCH, SUSPENSION_END_ACTOR);
      if (ended > 0) logger.info('suspensions ended at their end time', { ended });
      return ended === BATCH ? 'more' : undefined;
    },
    { intervalMs, failed: (err) => logger.warn('ending suspensions past their end failed, will retry', { err }) },
  );
  task.start();
  return task;
}
