import { Backoff, Logger } from '@gw/service-kit';
import { mailsGivenUp, sendAttempts } from '../notifier-metrics';
import { MailDraft } from './holder-notice';
import { afterFailedTry } from './mail-retry';
import { ClaimedMail, MailStore } from '../store/mail-store';

/** The mail server as the sender sees it. */
export interface MailTransport {
  /** Resolves once the server has taken the mail; rejects with what it (or the way to it) said. */
  send(mail: MailDraft): Promise<void>;
  close(): void;
}

/** How the sender tries. */
export interface SendSettings {
  retry: Backoff;
  maxAttempts: number;
  claimMs: number;
}

/**
 * Mails claimed per query: one, so that each claim covers one send (MAIL_CLAIM_MS is checked to
 * be at least four SMTP timeouts). Claimed 20 at a time and sent in turn behind a slow mail
 * server, the later ones' claims could lapse before their turn, and another replica send them too.
 */
const BATCH = 1;
/** The wait before a pass that failed on the store (not on a mail) is run again. */
const STORE_RETRY_MS = 1000;
/** The longest a failure's words are kept. */
const MAX_ERROR_LENGTH = 300;

/** A send's failure in words: the server's code and answer, never what was sent to it (its password, say). */
export function failureOf(err: unknown): string {
  const e = err as { code?: unknown; responseCode?: unknown; response?: unknown; message?: unknown };
  const code = [e.code, e.responseCode].filter((part) => typeof part === 'string' || typeof part === 'number').join(' ');
  const said = typeof e.response === 'string' ? e.response : typeof e.message === 'string' ? e.message : 'unknown failure';
  return `${code ? `${code}: ` : ''}${said}`.slice(0, MAX_ERROR_LENGTH);
}

/**
 * Sends the pending mails through the mail server: each claimed (so that another replica leaves
 * it alone for `claimMs`), sent with its Message-ID, marked sent; a mail the server did not take
 * is tried again after the one retry policy's wait, up to `maxAttempts` tries, then given up
 * (counted and logged). It wakes when mails are written, and otherwise when the next one is due.
 */
export class MailSender {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly store: MailStore,
    private readonly transport: MailTransport,
    private readonly settings: SendSettings,
    private readonly logger: Logger,
  ) {}

  /** Looks for mails to send now (new ones were written, or one is due). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Stops waking; resolves once a send under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private async run(): Promise<void> {
    try {
      for (;;) {
        const mails = await this.store.claimDue(BATCH, this.settings.claimMs);
        for (const mail of mails) {
          if (this.stopped) return;
          await this.sendOne(mail);
        }
        if (mails.length < BATCH || this.stopped) break;
      }
      this.wakeIn(await this.store.nextDueInMs());
    } catch (err) {
      this.logger.warn('mail store not read: will look again', { err });
      this.wakeIn(STORE_RETRY_MS);
    }
  }

  private wakeIn(ms: number | undefined): void {
    if (ms === undefined || this.stopped) return;
    this.timer = setTimeout(() => this.wake(), Math.max(ms, 10));
    this.timer.unref();
  }

  private async sendOne(mail: ClaimedMail): Promise<void> {
    const attempt = mail.attemptsBefore + 1;
    try {
      await this.transport.send(mail);
    } catch (err) {
      sendAttempts.inc({ outcome: 'failed' });
      const failure = failureOf(err);
      const next = afterFailedTry(attempt, this.settings.retry, this.settings.maxAttempts);
      if ('giveUp' in next) {
        mailsGivenUp.inc();
        this.logger.error('mail given up after its last try', { messageId: mail.messageId, attempt, failure });
        return this.store.giveUp(mail.id, failure);
      }
      this.logger.warn('mail not taken by the mail server: will try again', {
        messageId: mail.messageId,
        attempt,
        retryInMs: next.retryInMs,
        failure,
      });
      return this.store.retryLater(mail.id, next.retryInMs, failure);
    }
    sendAttempts.inc({ outcome: 'sent' });
    await this.store.markSent(mail.id);
    this.logger.info('mail sent', { messageId: mail.messageId, attempt });
  }
}
