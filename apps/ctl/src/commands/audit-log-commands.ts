import { auditV1 } from '@gw/contracts';
import { Command, CtlCheckFailed } from './command';

/** How long a walk may take: it reads every entry of a chain. */
const VERIFY_TIMEOUT_MS = 300_000;

const toChain = (service: string, check: auditV1.ChainCheck | undefined) => ({
  service,
  entries: check?.entries ?? 0,
  ok: check?.ok ?? false,
  ...(check?.firstBad ? { firstBad: check.firstBad } : {}),
});

/**
 * `audit-log verify`: auth-service and billing-service each walk their audit trail, recomputing
 * every entry's hash in order, and the report is printed: every chain ok, or (exit 1) the first
 * entry of a chain that was edited, is missing, or does not follow the one before it.
 */
export const auditLogVerify: Command = async (_flags, c) => {
  const timeoutMs = Math.max(c.timeoutMs, VERIFY_TIMEOUT_MS);
  const [auth, billing] = await Promise.all([c.auth.verifyAuditTrail({}, { timeoutMs }), c.billing.verifyAuditTrail({}, { timeoutMs })]);
  const report = { chains: [toChain('auth-service', auth.check), toChain('billing-service', billing.check)] };
  if (report.chains.some((chain) => !chain.ok)) throw new CtlCheckFailed(report);
  return report;
};
