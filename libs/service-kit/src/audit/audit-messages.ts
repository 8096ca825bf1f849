import { auditV1 } from '@gw/contracts';
import { AuditEntry, ChainCheck } from './audit-chain';

/** An entry as audit.v1 carries it (the account empty for a change of the whole service). */
export const toAuditEntryMessage = (e: AuditEntry): auditV1.AuditEntry => ({
  seq: e.seq,
  at: e.at.toISOString(),
  accountId: e.accountId ?? '',
  action: e.action,
  detailsJson: JSON.stringify(e.details),
  actor: e.actor,
  reason: e.reason,
});

/** A chain's check as audit.v1 carries it. */
export const toChainCheckMessage = (c: ChainCheck): auditV1.ChainCheck => ({ entries: c.entries, ok: c.ok, firstBad: c.firstBad });
