import { readFileSync } from 'node:fs';
import { createTransport } from 'nodemailer';
import { SmtpSettings } from '../config';
import { MailTransport } from '../domain/mail-sender';

/**
 * The mail server through nodemailer's SMTP transport: TLS from the start on smtps://, STARTTLS
 * on smtp:// when offered (or required), the server's certificate checked against the CA bundle
 * (or SMTP_TLS_CA_FILE), each step bounded by SMTP_TIMEOUT_MS. A mail is plain text, from
 * `from`, with the Message-ID it was written with, marked as sent by a machine (Auto-Submitted).
 */
export function smtpTransport(smtp: SmtpSettings, from: string): MailTransport {
  const transporter = createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    requireTLS: smtp.requireTls,
    auth: smtp.user === undefined ? undefined : { user: smtp.user, pass: smtp.password ?? '' },
    tls: {
      rejectUnauthorized: smtp.rejectUnauthorized,
      servername: smtp.host,
      ...(smtp.caFile ? { ca: readFileSync(smtp.caFile) } : {}),
    },
    connectionTimeout: smtp.timeoutMs,
    greetingTimeout: smtp.timeoutMs,
    socketTimeout: smtp.timeoutMs,
    // Mails are made of text only: no file or URL is ever read into one.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return {
    send: async (mail) => {
      await transporter.sendMail({
        from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        messageId: `<${mail.messageId}>`,
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
    },
    close: () => transporter.close(),
  };
}
