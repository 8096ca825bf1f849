import { gauge, Logger, PeriodicTask } from '@gw/service-kit';
import { MoneyAuditStore, MoneyViolation, MoneyViolationKind } from '../store/money-audit-store';

/** The most violations one audit reports. */
export const MAX_VIOLATIONS = 1000;

const KINDS: readonly MoneyViolationKind[] = ['balance-not-entries', 'billed-twice'];

const violations = gauge('money_audit_violations', 'What the last audit of the books found wrong, by kind (0 when the money adds up).', ['kind']);

/** Audits the books now; the gauge shows what it found. */
export async function auditMoney(store: MoneyAuditStore): Promise<{ violations: MoneyViolation[]; accountsChecked: number }> {
  const found = await store.audit(MAX_VIOLATIONS);
  for (const kind of KINDS) violations.set({ kind }, found.violations.filter((v) => v.kind === kind).length);
  return found;
}

/** Audits the books now and every `intervalMs` (every replica: the audit only reads); each violation is logged. */
export function startMoneyAuditWatch(store: MoneyAuditStore, intervalMs: number, logger: Logger): PeriodicTask {
  const pass = async () => {
    const found = await auditMoney(store);
    for (const v of found.violations) logger.error('money audit violation', { kind: v.kind, accountId: v.accountId, billingId: v.requestId, detail: v.detail });
  };
  const task = new PeriodicTask(pass, intervalMs, (err) => logger.warn('money audit failed, will retry', { err }));
  task.start(true);
  return task;
}
