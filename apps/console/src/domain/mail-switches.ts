import { HolderEventKindName, SECURITY_EVENT_KINDS } from '@gw/service-kit';

/** Each kind of mail as the Mail page names it, in the order it lists them. */
export const MAIL_KINDS: readonly { kind: HolderEventKindName; label: string }[] = [
  { kind: 'low-balance', label: 'The balance fell to or below your low-balance alert' },
  { kind: 'balance-exhausted', label: 'The balance can no longer pay for a request' },
  { kind: 'top-up-credited', label: 'A top-up was credited' },
  { kind: 'account-suspended', label: 'The account was suspended' },
  { kind: 'account-unsuspended', label: "The account's suspension ended" },
  { kind: 'key-created', label: 'A key was created' },
  { kind: 'key-revoked', label: 'A key was revoked' },
  { kind: 'key-leak-suspected', label: "A key's spending looks like a leak" },
];

/** Whether a holder may switch this kind of mail off: every kind but the security ones. */
export const canSwitchOff = (kind: HolderEventKindName): boolean => !SECURITY_EVENT_KINDS.includes(kind);

/**
 * The kinds a holder switched off, from the switches form: each kind the page lists that can be
 * switched off and whose box (`on`, the kinds left on) was not sent. A security kind is never off,
 * whatever is sent.
 */
export function switchedOffFrom(on: unknown): HolderEventKindName[] {
  const sent = new Set((Array.isArray(on) ? on : [on]).filter((v): v is string => typeof v === 'string'));
  return MAIL_KINDS.map((m) => m.kind).filter((kind) => canSwitchOff(kind) && !sent.has(kind));
}
