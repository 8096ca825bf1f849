import { defineSettings, setting } from '@gw/service-kit';
import {
  AUTH_ADDR,
  BILLING_ADDR,
  BIND_HOST,
  CONSOLE_ADDR,
  CONSOLE_PUBLIC_URL,
  DATA_DIR,
  DATABASE_URL,
  GRPC_MAX_CONNECTION_AGE_MS,
  LOG_LEVEL,
  SHUTDOWN_GRACE_MS,
} from './common';

/** What the notifier reads (apps/notifier/src/config.ts), besides GRPC_SECURITY_SETTINGS. */
export const NOTIFIER_SETTINGS = defineSettings({
  BIND_HOST,
  NOTIFIER_PORT: setting.int(50055, 'notifier.v1, for the console (the Mail page)'),
  NOTIFIER_METRICS_PORT: setting.int(9105, 'the admin port: GET /metrics, /healthz and /readyz'),
  GRPC_MAX_CONNECTION_AGE_MS,
  AUTH_ADDR,
  BILLING_ADDR,
  CONSOLE_ADDR,
  GRPC_TIMEOUT_MS: setting.int(5000, 'the deadline of each gRPC call (the console asked whom an event is mailed to)'),
  DATABASE_URL,
  DATA_DIR,
  SMTP_URL: setting.optional(
    'the mail server: smtp://host:port (STARTTLS when offered) or smtps://host:port (TLS from the start), user and password in it or below; unset: mails are kept in the local outbox that the console shows',
  ),
  SMTP_USER: setting.optional("the mail server's user name (instead of the one in SMTP_URL)"),
  SMTP_PASSWORD: setting.optional("the mail server's password (instead of the one in SMTP_URL); never logged"),
  SMTP_REQUIRE_TLS: setting.bool(false, 'on smtp://, refuse to send unless the server upgrades to TLS (STARTTLS)'),
  SMTP_TLS_REJECT_UNAUTHORIZED: setting.bool(
    true,
    'refuse a mail server whose certificate the CA bundle does not trust (false only for a test server)',
  ),
  SMTP_TLS_CA_FILE: setting.optional("a PEM file of the CAs the mail server's certificate is checked against; unset: Node's bundle"),
  SMTP_TIMEOUT_MS: setting.int(30_000, 'how long the mail server may take to connect, greet, or answer a step of a send', { min: 100 }),
  MAIL_FROM: setting.string(
    'Gateway console <no-reply@gateway.invalid>',
    "the mails' From: address (its domain also ends each Message-ID)",
  ),
  CONSOLE_PUBLIC_URL,
  MAIL_RETRY_FIRST_MS: setting.int(5000, 'the wait before the first retry of a mail the server did not take; it doubles on each failure', {
    min: 10,
  }),
  MAIL_RETRY_MAX_MS: setting.int(3_600_000, 'the longest wait between two tries of a mail', { min: 10 }),
  MAIL_MAX_ATTEMPTS: setting.int(24, 'tries of a mail before it is given up (counted and logged)', { min: 1 }),
  MAIL_CLAIM_MS: setting.int(
    300_000,
    'a mail being sent by a replica is sent by another only this long after (a replica that died while sending); at least 4 × SMTP_TIMEOUT_MS',
    { min: 100 },
  ),
  SHUTDOWN_GRACE_MS,
  LOG_LEVEL,
});
