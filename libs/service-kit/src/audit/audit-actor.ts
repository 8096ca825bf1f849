import { Metadata } from '@grpc/grpc-js';
import { optionalId } from '../grpc/field-checks';
import { verifiedCallerOf } from '../grpc/verified-caller';

/** The longest reason an operator may give for a change. */
export const MAX_AUDIT_REASON_LENGTH = 500;
/** The longest holder name (an email address is at most 320 characters). */
const MAX_HOLDER_LENGTH = 320;

/** Who made a change and why, as an audit entry records it. */
export interface AuditActor {
  actor: string;
  reason: string;
}

/**
 * Who made the change a call asks for: the console's signed-in holder (`holder:<email>`) when the
 * call comes from the console and names one, else the caller's verified certificate identity
 * (`ctl`, ...; `unchecked` on a plain-text server). A holder named by any other caller is not
 * believed. The reason is checked against its bound (INVALID_ARGUMENT) before anything changes.
 */
export function auditActor(metadata: Metadata, note: { holder?: string; reason?: string } | undefined): AuditActor {
  const caller = verifiedCallerOf(metadata) ?? 'unknown';
  const holder = optionalId('note.holder', note?.holder ?? '', MAX_HOLDER_LENGTH);
  const reason = optionalId('reason', note?.reason ?? '', MAX_AUDIT_REASON_LENGTH);
  return { actor: caller === 'console' && holder ? `holder:${holder}` : caller, reason };
}
