import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { GatewayUnderTest, startGateway } from '@gw/test-stack';
import { eventually, repoRoot } from '@gw/testing';
import { CaughtMail, SmtpCatcher } from './smtp-catcher';

/** The From of every mail in these tests. */
export const MAIL_FROM = 'Gateway console <no-reply@gateway.test>';

/** A mail as the notifier keeps it. */
export interface KeptMail {
  messageId: string;
  kind: string;
  recipient: string;
  state: string;
  attempts: number;
}

/** The whole stack with its notifier sending to a catcher of its own, and reads of the notifier's store. */
export interface MailStack {
  gw: GatewayUnderTest;
  catcher: SmtpCatcher;
  pg: PgClient;
  /** The mails the notifier wrote for an account, oldest first. */
  keptMails(accountId: string): Promise<KeptMail[]>;
  /** The account's mail of `kind` once the notifier has it sent, and the catcher's copies of it. */
  sentMail(accountId: string, kind: string, timeoutMs?: number): Promise<{ kept: KeptMail; caught: CaughtMail[] }>;
  stop(): Promise<void>;
}

/**
 * Starts a catcher and the stack, the notifier sending to the catcher over STARTTLS (its
 * certificate checked against the test CA) with its user and password, retrying fast, and
 * giving a send that died 8 s before another replica may send it again; auth-service ends the
 * suspensions whose end time passed every 0.2 s.
 */
export async function startMailStack(): Promise<MailStack> {
  const catcher = await SmtpCatcher.start();
  const gw = await startGateway({
    SMTP_URL: catcher.url,
    SMTP_REQUIRE_TLS: 'true',
    SMTP_TLS_CA_FILE: SmtpCatcher.caFile(),
    SMTP_TIMEOUT_MS: '2000',
    MAIL_CLAIM_MS: '8000',
    MAIL_FROM,
    MAIL_RETRY_FIRST_MS: '200',
    MAIL_RETRY_MAX_MS: '1000',
    SUSPENSION_END_CHECK_MS: '200',
  }).catch(async (err: unknown) => {
    await catcher.stop();
    throw err;
  });
  const pg = new PgClient({ connectionString: gw.stack.env.DATABASE_URL });
  await pg.connect();
  const keptMails = async (accountId: string) =>
    (
      await pg.query<{ message_id: string; kind: string; recipient: string; state: string; attempts: number }>(
        'SELECT message_id, kind, recipient, state, attempts FROM notifier.mails WHERE account_id = $1 ORDER BY id',
        [accountId],
      )
    ).rows.map((r) => ({ messageId: r.message_id, kind: r.kind, recipient: r.recipient, state: r.state, attempts: r.attempts }));
  return {
    gw,
    catcher,
    pg,
    keptMails,
    async sentMail(accountId, kind, timeoutMs = 20_000) {
      const sent = async () => (await keptMails(accountId)).filter((m) => m.kind === kind && m.state === 'sent');
      const [kept] = await eventually(sent, (found) => found.length > 0, { timeoutMs, what: `the ${kind} mail of ${accountId} sent` });
      return { kept, caught: catcher.byMessageId(kept.messageId) };
    },
    stop: async () => {
      await pg.end();
      await gw.stop();
      await catcher.stop();
    },
  };
}

/** Keeps a mail as received (its headers and text) under test-output/mails/, for a person to read. */
export function keepSample(name: string, mail: CaughtMail): void {
  const dir = join(repoRoot(), 'test-output', 'mails');
  mkdirSync(dir, { recursive: true });
  const headers = `From: ${mail.from}\nTo: ${mail.to}\nSubject: ${mail.subject}\nMessage-ID: <${mail.messageId}>\nAuto-Submitted: ${mail.autoSubmitted}\n`;
  writeFileSync(join(dir, `${name}.txt`), `${headers}\n${mail.text}`);
}
