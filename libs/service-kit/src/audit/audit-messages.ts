import { auditV1 } from '@gw/contracts';
import { AuditEntry, ChainCheck, ChainPoint } from './audit-chain';

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

/** A chain's check as audit.v1 carries it, its head a checkpoint of `service`. */
export const toChainCheckMessage = (c: ChainCheck, service: string): auditV1.ChainCheck => ({
  entries: c.entries,
  ok: c.ok,
  firstBad: c.firstBad,
  unkeyedEntries: c.unkeyedEntries,
  head: c.head && { service, ...c.head },
});

/** The checkpoint a VerifyAuditTrail request holds the walk to (its service is the caller's business). */
export const fromCheckpointMessage = (c: auditV1.Checkpoint | undefined): ChainPoint | undefined =>
  c && { seq: c.seq, hash: c.hash.toLowerCase(), mac: c.mac.toLowerCase(), at: c.at };
