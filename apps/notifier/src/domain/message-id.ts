import { createHash } from 'node:crypto';

/** The domain of an address as MAIL_FROM gives it (`Name <user@domain>` or `user@domain`); undefined when it has none. */
export function domainOf(address: string): string | undefined {
  const bare = /<([^<>]+)>\s*$/.exec(address)?.[1] ?? address.trim();
  const at = bare.lastIndexOf('@');
  const domain = at < 0 ? '' : bare.slice(at + 1).trim();
  return /^[A-Za-z0-9.-]+$/.test(domain) ? domain.toLowerCase() : undefined;
}

/**
 * The Message-ID of the mail that tells `to` of a service's event (without angle brackets): the
 * same for every send of that mail, so a resend after a crash is recognisable as the same mail,
 * and different for every event and recipient. The recipient appears only as a digest.
 */
export function messageIdOf(source: string, eventId: number, to: string, from: string): string {
  const recipient = createHash('sha256').update(to.trim().toLowerCase()).digest('hex').slice(0, 16);
  return `${source}.${eventId}.${recipient}@${domainOf(from) ?? 'notifier.invalid'}`;
}
