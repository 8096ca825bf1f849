import { HolderEventKindName, SECURITY_EVENT_KINDS } from '@gw/service-kit';
import { eventsTaken, mailsWritten } from '../notifier-metrics';
import { MailStore } from '../store/mail-store';
import { HolderNotice, MailDraft } from './holder-notice';
import { mailText } from './mail-templates';
import { messageIdOf } from './message-id';

/** A holder of the account and the kinds of mail they switched off. */
export interface Recipient {
  email: string;
  switchedOff: readonly HolderEventKindName[];
}

/** Whom an account's mail goes to (the console, console.v1 ListMailRecipients). */
export interface RecipientDirectory {
  recipients(accountId: string): Promise<Recipient[]>;
}

/** A key as its holders know it: its name and 12-character prefix. */
export interface KeyName {
  name: string;
  prefix: string;
}

/** Names an account's key by its id (auth-service, auth.v1 ListKeys); undefined for a key no longer active. */
export interface KeyNames {
  nameOf(accountId: string, keyId: string): Promise<KeyName | undefined>;
}

/** How mails are written: the From address (for the Message-ID), the console's address (for the links), and whether they are only kept. */
export interface MailWriting {
  from: string;
  consoleUrl: string;
  /** No mail server: mails are kept in the outbox (the console shows them), not sent. */
  keepOnly: boolean;
}

/** Whether a holder gets the mail of a kind: security mail always, any other unless they switched it off. */
export const mailsTo = (recipient: Recipient, kind: HolderEventKindName): boolean =>
  SECURITY_EVENT_KINDS.includes(kind) || !recipient.switchedOff.includes(kind);

/**
 * Takes one holder event: asks whom it is mailed to, writes each mail, and records the event as
 * taken, its mails and the stream's cursor in one transaction (MailStore.take). An event taken
 * before (a repeated delivery) mails nothing again.
 */
export class EventTaker {
  constructor(
    private readonly store: MailStore,
    private readonly directory: RecipientDirectory,
    private readonly keys: KeyNames,
    private readonly writing: MailWriting,
    /** Mails were written to be sent. */
    private readonly written: () => void,
  ) {}

  async take(event: HolderNotice, cursor: string): Promise<void> {
    const [recipients, notice] = await Promise.all([this.directory.recipients(event.accountId), this.withKeyName(event)]);
    const { subject, text } = mailText(notice, this.writing.consoleUrl);
    const mails: MailDraft[] = recipients
      .filter((r) => mailsTo(r, notice.kind))
      .map((r) => ({ messageId: messageIdOf(notice.source, notice.id, r.email, this.writing.from), to: r.email, subject, text }));
    const state = this.writing.keepOnly ? 'kept' : 'pending';
    const fresh = await this.store.take(notice, cursor, mails, state);
    eventsTaken.inc({ source: notice.source, outcome: fresh ? 'new' : 'repeated' });
    if (!fresh || mails.length === 0) return;
    mailsWritten.inc({ state }, mails.length);
    if (state === 'pending') this.written();
  }

  /**
   * An event about a key that names it by id only (billing-service knows a bill's key id, not its
   * name or prefix) gets the name and prefix auth-service has for it, so that the holder knows
   * which key the mail is about; a key revoked meanwhile keeps its id.
   */
  private async withKeyName(notice: HolderNotice): Promise<HolderNotice> {
    const { keyId, prefix } = notice.details;
    if (typeof keyId !== 'string' || prefix !== undefined) return notice;
    const key = await this.keys.nameOf(notice.accountId, keyId);
    return key ? { ...notice, details: { ...notice.details, name: key.name, prefix: key.prefix } } : notice;
  }
}
