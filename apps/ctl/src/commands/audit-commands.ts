import { Command, CtlCheckFailed } from './command';

/** How long the audit may take: it reads every balance, the whole ledger and every account in Redis. */
const AUDIT_TIMEOUT_MS = 300_000;

interface Violation {
  kind: string;
  accountId: string;
  requestId: string;
  detail: string;
}

const shown = (v: Violation) => ({
  kind: v.kind,
  ...(v.accountId ? { accountId: v.accountId } : {}),
  ...(v.requestId ? { billingId: v.requestId } : {}),
  detail: v.detail,
});

/**
 * `audit`: billing-service checks its books (every balance equals its entries less its charges,
 * no billing id billed twice, every entry and charge matched to its link of the audit chain, each
 * link's rows its digest) and quota-service its store (every hold has a lease, the holds fit
 * the line, the line agrees with billing-service's, no lease or place outlives its rules, the free
 * pool is not below zero); the report is printed: `ok` true, or false with each violation named
 * (and the run exits 1). The lines quota-service is rebuilding after its store lost them are
 * listed under `store.repairingLines`: correct books on their way back, not violations.
 */
export const audit: Command = async (_flags, c) => {
  const timeoutMs = Math.max(c.timeoutMs, AUDIT_TIMEOUT_MS);
  const [books, store] = await Promise.all([c.billing.auditMoney({}, { timeoutMs }), c.quota.auditStore({}, { timeoutMs })]);
  const violations = [...books.violations, ...store.violations].map(shown);
  const report = {
    ok: violations.length === 0,
    books: { accountsChecked: books.accountsChecked },
    store: {
      checked: store.checked,
      accountsChecked: store.accountsChecked,
      repairingLines: store.repairingLines.map((line) => ({ accountId: line.accountId, detail: line.detail })),
    },
    violations,
  };
  if (!report.ok) throw new CtlCheckFailed(report);
  return report;
};
