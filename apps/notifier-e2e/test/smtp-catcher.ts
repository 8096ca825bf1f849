import { readFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { ensureDevCertificates } from '@gw/dev-pki';
import { testTlsRoot } from '@gw/testing';

/** A mail the server took (answered 250 to its DATA), as parsed. */
export interface CaughtMail {
  messageId: string;
  /** The From header's name and address, as `Name <address>`. */
  from: string;
  to: string;
  subject: string;
  text: string;
  autoSubmitted: string;
  /** The envelope's recipients (RCPT TO). */
  envelopeTo: string[];
}

/** The user and password the catcher takes, and nothing else. */
export const SMTP_USER = 'notifier';
export const SMTP_PASSWORD = 'mail server password, never logged';

/**
 * A real SMTP server on loopback (smtp-server): STARTTLS with a certificate of the test CA
 * (DNS localhost), AUTH required, every mail parsed (mailparser) and kept once the server has
 * answered its DATA with 250. It can refuse the next mails for a while (451, try again later),
 * or hold the next DATA without answering until the test lets go: a held mail whose connection
 * closes meanwhile (its sender killed) was never taken.
 */
export class SmtpCatcher {
  readonly mails: CaughtMail[] = [];
  /** Mails refused (451) so far. */
  refusedCount = 0;
  private refusing = 0;
  private holdNext = false;
  private held: ((mail: CaughtMail) => void) | undefined;
  private release: (() => void) | undefined;
  private heldSession: string | undefined;
  private readonly closed = new Set<string>();

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  static async start(): Promise<SmtpCatcher> {
    const root = testTlsRoot();
    ensureDevCertificates(root, ['smtp-test']);
    // The server's handlers reach the catcher made around it.
    const made: { catcher?: SmtpCatcher } = {};
    const server = new SMTPServer({
      key: readFileSync(join(root, 'smtp-test', 'tls.key')),
      cert: readFileSync(join(root, 'smtp-test', 'tls.crt')),
      authMethods: ['PLAIN', 'LOGIN'],
      logger: false,
      onAuth: (auth, _session, done) =>
        auth.username === SMTP_USER && auth.password === SMTP_PASSWORD
          ? done(null, { user: auth.username })
          : done(Object.assign(new Error('Invalid username or password'), { responseCode: 535 })),
      onClose: (session) => made.catcher?.closed.add(session.id),
      onData: (stream, session, done) => void made.catcher?.take(stream, session, done),
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    made.catcher = new SmtpCatcher(server, (server.server.address() as AddressInfo).port);
    return made.catcher;
  }

  /** SMTP_URL of the catcher (STARTTLS, its certificate names localhost), with the user and password it takes. */
  get url(): string {
    return `smtp://${SMTP_USER}:${encodeURIComponent(SMTP_PASSWORD)}@localhost:${this.port}`;
  }

  /** The CA that signed the catcher's certificate. */
  static caFile(): string {
    return join(testTlsRoot(), 'ca.crt');
  }

  /** The mails taken with this Message-ID (without angle brackets). */
  byMessageId(messageId: string): CaughtMail[] {
    return this.mails.filter((m) => m.messageId === messageId);
  }

  /** Refuses the next `count` mails with 451 (try again later). */
  refuseNext(count: number): void {
    this.refusing = count;
  }

  /** Holds the next mail's DATA unanswered: resolves with the mail once it is held; `letGo` answers it (if its sender is still there). */
  holdNextMail(): Promise<CaughtMail> {
    this.holdNext = true;
    return new Promise((resolve) => (this.held = resolve));
  }

  /** Whether the connection of the mail held has closed (its sender is gone). */
  heldConnectionClosed(): boolean {
    return this.heldSession !== undefined && this.closed.has(this.heldSession);
  }

  letGo(): void {
    this.release?.();
  }

  async stop(): Promise<void> {
    this.release?.();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async take(
    stream: NodeJS.ReadableStream,
    session: { id: string; envelope: { rcptTo: { address: string }[] } },
    done: (err?: Error) => void,
  ) {
    const parsed = await simpleParser(stream as never);
    const mail: CaughtMail = {
      messageId: (parsed.messageId ?? '').replace(/^<|>$/g, ''),
      from: (parsed.from?.value ?? []).map((a) => (a.name ? `${a.name} <${a.address}>` : (a.address ?? ''))).join(', '),
      to: Array.isArray(parsed.to) ? parsed.to.map((a) => a.text).join(', ') : (parsed.to?.text ?? ''),
      subject: parsed.subject ?? '',
      text: parsed.text ?? '',
      autoSubmitted: String(parsed.headers.get('auto-submitted') ?? ''),
      envelopeTo: session.envelope.rcptTo.map((r) => r.address),
    };
    if (this.refusing > 0) {
      this.refusing--;
      this.refusedCount++;
      return done(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }));
    }
    if (this.holdNext) {
      this.holdNext = false;
      this.heldSession = session.id;
      await new Promise<void>((resolve) => {
        this.release = resolve;
        this.held?.(mail);
      });
      this.release = undefined;
      // Its sender went away before the answer: the mail was not taken.
      if (this.closed.has(session.id)) return;
    }
    this.mails.push(mail);
    done();
  }
}
