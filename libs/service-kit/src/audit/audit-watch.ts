import { Logger } from '../process/logger';
import { gauge } from '../process/metrics';
import { PeriodicTask } from '../process/periodic-task';

/** One rule an audit found broken: its kind, the account and (if any) billing id it is about, the figures in words. */
export interface AuditViolation {
  kind: string;
  accountId: string;
  requestId: string;
  detail: string;
}

/** What one audit found. */
export interface AuditReport<V extends AuditViolation = AuditViolation> {
  violations: V[];
  accountsChecked: number;
}

// One metric for every service's audit (billing-service's books, quota-service's store), by kind: one alert (MoneyAuditViolation) for all.
const violations = gauge(
  'money_audit_violations',
  'What the last audit of the books or the store found wrong, by kind (0 when every rule holds).',
  ['kind'],
);

/**
 * An audit of money (ctl audit, and every `intervalMs` in the service): each run sets the
 * gauge for every kind it can find, and the periodic runs log each violation.
 */
export class MoneyAudit<V extends AuditViolation, R extends AuditReport<V> = AuditReport<V>> {
  private task: PeriodicTask | undefined;

  constructor(
    private readonly kinds: readonly string[],
    private readonly audit: () => Promise<R>,
  ) {}

  /** Audits now; the gauge shows what it found. */
  async run(): Promise<R> {
    const report = await this.audit();
    for (const kind of this.kinds) violations.set({ kind }, report.violations.filter((v) => v.kind === kind).length);
    return report;
  }

  /** Audits now and every `intervalMs` (every replica may: the audit only reads). */
  watch(intervalMs: number, logger: Logger): void {
    this.task = new PeriodicTask(
      async () => {
        for (const v of (await this.run()).violations)
          logger.error('audit violation', { kind: v.kind, accountId: v.accountId, billingId: v.requestId, detail: v.detail });
      },
      { intervalMs, failed: (err) => logger.warn('audit failed, will retry', { err }) },
    );
    this.task.start(true);
  }

  /** Stops the periodic audit, waiting for a run under way. */
  async stop(): Promise<void> {
    await this.task?.stop();
  }
}
