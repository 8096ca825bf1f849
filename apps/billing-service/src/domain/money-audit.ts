import { MoneyAudit } from '@gw/service-kit';
import { MoneyAuditStore, MoneyViolation, MoneyViolationKind } from '../store/money-audit-store';

/** The most violations one audit reports. */
export const MAX_VIOLATIONS = 1000;

const KINDS: readonly MoneyViolationKind[] = [
  'balance-not-entries',
  'billed-twice',
  'correction-not-charge',
  'entry-without-link',
  'link-without-entry',
  'link-not-rows',
];

/** The audit of billing's books: `ctl audit` runs it, and every replica every MONEY_AUDIT_INTERVAL_MS (the money_audit_violations gauge). */
export const moneyAuditOf = (store: MoneyAuditStore): MoneyAudit<MoneyViolation> =>
  new MoneyAudit(KINDS, () => store.audit(MAX_VIOLATIONS));
