import { unaryCall } from '@gw/service-kit';
import { Command, CtlCheckFailed } from './command';

/** How long the audit may take: it reads every balance and the whole ledger. */
const AUDIT_TIMEOUT_MS = 300_000;

/**
 * `audit`: billing-service checks its books (every balance equals its entries less its charges,
 * no billing id billed twice) and the report is printed: `ok` true, or false with each violation
 * named (and the run exits 1).
 */
export const audit: Command = async (_flags, c) => {
  const money = await unaryCall(c.billing.auditMoney.bind(c.billing), {}, Math.max(c.timeoutMs, AUDIT_TIMEOUT_MS));
  const report = {
    ok: money.violations.length === 0,
    accountsChecked: money.accountsChecked,
    violations: money.violations.map((v) => ({ kind: v.kind, accountId: v.accountId, ...(v.requestId ? { billingId: v.requestId } : {}), detail: v.detail })),
  };
  if (!report.ok) throw new CtlCheckFailed(report);
  return report;
};
