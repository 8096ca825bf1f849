import { NOTIFIER_SETTINGS } from '@gw/app-settings';
import { Backoff, Env, GrpcServerSettings, LogLevel, readGrpcServerSettings, readSettings } from '@gw/service-kit';

/** How the mail server is reached (SMTP_URL and its companions); the password is never logged. */
export interface SmtpSettings {
  host: string;
  port: number;
  /** smtps://: TLS from the first byte; smtp://: STARTTLS when the server offers it (or required, `requireTls`). */
  secure: boolean;
  requireTls: boolean;
  user: string | undefined;
  password: string | undefined;
  rejectUnauthorized: boolean;
  caFile: string | undefined;
  timeoutMs: number;
}

/** notifier settings, each default beside its variable. */
export interface NotifierConfig extends GrpcServerSettings {
  authAddr: string;
  billingAddr: string;
  consoleAddr: string;
  grpcTimeoutMs: number;
  /** Postgres URL; unset selects the embedded PGlite under `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** The mail server; undefined: mails are kept in the local outbox (the console shows them). */
  smtp: SmtpSettings | undefined;
  /** The From: address. */
  mailFrom: string;
  /** Where the links in mail lead: the console as holders reach it. */
  consoleUrl: string;
  /** The waits between tries of a mail the server did not take (the one retry policy, backoffMs). */
  mailRetry: Backoff;
  mailMaxAttempts: number;
  /** How long a mail being sent is left to the replica sending it. */
  mailClaimMs: number;
  shutdownGraceMs: number;
  logLevel: LogLevel;
}

/** The mail server from SMTP_URL (smtp:// or smtps://, nothing else) and its companions. */
function smtpOf(s: ReturnType<typeof readSettings<typeof NOTIFIER_SETTINGS>>): SmtpSettings | undefined {
  if (s.SMTP_URL === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(s.SMTP_URL);
  } catch {
    // The URL may hold a password: not repeated in the error.
    throw new Error('SMTP_URL is not a URL (smtp://host:port or smtps://host:port)');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`SMTP_URL must be smtp:// or smtps://, got ${url.protocol}//`);
  if (!url.hostname) throw new Error('SMTP_URL names no host');
  const secure = url.protocol === 'smtps:';
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    requireTls: s.SMTP_REQUIRE_TLS,
    user: s.SMTP_USER ?? (url.username ? decodeURIComponent(url.username) : undefined),
    password: s.SMTP_PASSWORD ?? (url.password ? decodeURIComponent(url.password) : undefined),
    rejectUnauthorized: s.SMTP_TLS_REJECT_UNAUTHORIZED,
    caFile: s.SMTP_TLS_CA_FILE,
    timeoutMs: s.SMTP_TIMEOUT_MS,
  };
}

/** Reads the configuration through NOTIFIER_SETTINGS and readGrpcServerSettings; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<NotifierConfig> {
  const s = readSettings(env, NOTIFIER_SETTINGS);
  if (s.MAIL_CLAIM_MS < 4 * s.SMTP_TIMEOUT_MS)
    throw new Error(
      `MAIL_CLAIM_MS (${s.MAIL_CLAIM_MS}) must be at least 4 × SMTP_TIMEOUT_MS (${s.SMTP_TIMEOUT_MS}): a send still running would be sent again`,
    );
  return Object.freeze({
    ...readGrpcServerSettings(env, s, 'notifier', { port: s.NOTIFIER_PORT, metricsPort: s.NOTIFIER_METRICS_PORT }),
    authAddr: s.AUTH_ADDR,
    billingAddr: s.BILLING_ADDR,
    consoleAddr: s.CONSOLE_ADDR,
    grpcTimeoutMs: s.GRPC_TIMEOUT_MS,
    databaseUrl: s.DATABASE_URL,
    dataDir: `${s.DATA_DIR}/notifier`,
    smtp: smtpOf(s),
    mailFrom: s.MAIL_FROM,
    consoleUrl: (s.CONSOLE_PUBLIC_URL ?? 'http://127.0.0.1:8081').replace(/\/+$/, ''),
    mailRetry: { firstMs: s.MAIL_RETRY_FIRST_MS, maxMs: s.MAIL_RETRY_MAX_MS },
    mailMaxAttempts: s.MAIL_MAX_ATTEMPTS,
    mailClaimMs: s.MAIL_CLAIM_MS,
    shutdownGraceMs: s.SHUTDOWN_GRACE_MS,
    logLevel: s.LOG_LEVEL as LogLevel,
  });
}
