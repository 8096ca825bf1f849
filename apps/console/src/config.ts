import { CONSOLE_SETTINGS } from '@gw/app-settings';
import { Env, GrpcServerSettings, LogLevel, readGrpcServerSettings, readSettings } from '@gw/service-kit';

/** console settings, each default beside its variable. */
export interface ConsoleConfig extends GrpcServerSettings {
  /** The web pages (CONSOLE_PORT). */
  httpPort: number;
  authAddr: string;
  billingAddr: string;
  quotaAddr: string;
  /** The notifier: the account's mails on the Mail page. */
  notifierAddr: string;
  grpcTimeoutMs: number;
  /** The address holders reach the console at, for invitation links. */
  publicUrl: string;
  /** Cookies only over https (set behind an https front). */
  secureCookies: boolean;
  /**
   * Proxies in front of the console (an ingress controller is one) whose X-Forwarded-For is
   * trusted for the client's address, which sign-in attempts are counted by; 0 reads the peer's.
   */
  trustProxyHops: number;
  sessionTtlMs: number;
  /**
   * Sign-in attempts per email from one client in one window; four times as many per client
   * address, and past twice as many per email, one per `signInSlowIntervalMs` (SignInGuard).
   */
  signInMaxFailures: number;
  signInWindowMs: number;
  signInSlowIntervalMs: number;
  /** Postgres URL; unset selects the embedded PGlite under `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  shutdownGraceMs: number;
  logLevel: LogLevel;
}

/** Reads the configuration through CONSOLE_SETTINGS and readGrpcServerSettings; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<ConsoleConfig> {
  const s = readSettings(env, CONSOLE_SETTINGS);
  return Object.freeze({
    httpPort: s.CONSOLE_PORT,
    ...readGrpcServerSettings(env, s, 'console', { port: s.CONSOLE_GRPC_PORT, metricsPort: s.CONSOLE_METRICS_PORT }),
    authAddr: s.AUTH_ADDR,
    billingAddr: s.BILLING_ADDR,
    quotaAddr: s.QUOTA_ADDR,
    notifierAddr: s.NOTIFIER_ADDR,
    grpcTimeoutMs: s.GRPC_TIMEOUT_MS,
    publicUrl: (s.CONSOLE_PUBLIC_URL ?? `http://127.0.0.1:${s.CONSOLE_PORT}`).replace(/\/+$/, ''),
    secureCookies: s.CONSOLE_SECURE_COOKIES,
    trustProxyHops: s.CONSOLE_TRUST_PROXY_HOPS,
    sessionTtlMs: s.CONSOLE_SESSION_TTL_MS,
    signInMaxFailures: s.SIGN_IN_MAX_FAILURES,
    signInWindowMs: s.SIGN_IN_WINDOW_MS,
    signInSlowIntervalMs: s.SIGN_IN_SLOW_INTERVAL_MS,
    databaseUrl: s.DATABASE_URL,
    dataDir: `${s.DATA_DIR}/console`,
    shutdownGraceMs: s.SHUTDOWN_GRACE_MS,
    logLevel: s.LOG_LEVEL as LogLevel,
  });
}
