import { HolderNotice, MailDraft } from '../domain/holder-notice';

/** What becomes of a mail: kept in the outbox (no mail server), or sent (pending until the server takes it). */
export type MailState = 'kept' | 'pending' | 'sent' | 'failed';

/** A mail claimed for a try: what to send, and how many tries it had before this one. */
export interface ClaimedMail extends MailDraft {
  id: number;
  attemptsBefore: number;
}

/** A mail as the console's Mail page shows it. */
export interface MailRecord extends MailDraft {
  kind: string;
  eventAt: Date;
  state: MailState;
  sentAt: Date | undefined;
}

/** The notifier's store (Postgres schema `notifier`). */
export interface MailStore {
  /** Where `source`'s stream resumes: the cursor of the last event taken ('' before the first). */
  cursor(source: string): Promise<string>;
  /**
   * In one transaction: records the event as taken, its mails (`kept` or `pending`) and the
   * stream's new cursor. An event taken before records no mail again (false); the cursor moves on.
   */
  take(notice: HolderNotice, cursor: string, mails: MailDraft[], state: 'kept' | 'pending'): Promise<boolean>;
  /** Up to `limit` pending mails due now and claimed by no one, claimed for `claimMs` (a dead sender's claim lapses). */
  claimDue(limit: number, claimMs: number): Promise<ClaimedMail[]>;
  /** The server took the mail. */
  markSent(id: number): Promise<void>;
  /** The server did not take it: tried again in `inMs`; `error` is what it said (no secret). */
  retryLater(id: number, inMs: number, error: string): Promise<void>;
  /** Given up after its last try. */
  giveUp(id: number, error: string): Promise<void>;
  /** How long until a pending mail is due (or its claim lapses); undefined when none is pending. */
  nextDueInMs(): Promise<number | undefined>;
  /** The account's newest `limit` mails, newest event first. */
  forAccount(accountId: string, limit: number): Promise<MailRecord[]>;
  /** Pending mails and how long the oldest has waited since it was written, seconds (0 when none). */
  backlog(): Promise<{ pending: number; oldestSeconds: number }>;
}
