import { macMatches, AuditKey } from './audit-chain';
import { Database } from '../db/database';
import { Logger } from '../process/logger';
import { PeriodicTask } from '../process/periodic-task';
import { PgAuditTrail } from './pg-audit-trail';

/**
 * Logs the chain's last link at info every `intervalMs`, as `audit checkpoint` {service, seq,
 * hash, mac, at}: a log store then keeps checkpoints outside the database, for `ctl audit-log
 * verify --checkpoint`. A last link whose mac is not its hash's under the key is logged as an
 * error instead (never as a checkpoint to keep). The task is returned started; stop it on shutdown.
 */
export function logAuditCheckpoints(
  service: string,
  trail: PgAuditTrail,
  db: Database,
  key: AuditKey,
  intervalMs: number,
  logger: Logger,
): PeriodicTask {
  const task = new PeriodicTask(
    async () => {
      const last = await trail.lastLink(db);
      if (!last) return;
      if (last.mac && macMatches(key, last.hash, last.mac)) logger.info('audit checkpoint', { service, ...last });
      else logger.error('audit chain head is not keyed under AUDIT_KEY: no checkpoint logged', { service, seq: last.seq });
    },
    { intervalMs, failed: (err) => logger.warn('audit checkpoint failed, will retry', { err }) },
  );
  task.start(true);
  return task;
}
