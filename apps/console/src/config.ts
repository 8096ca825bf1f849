import { Env, GrpcSecurity, LogLevel, readBool, readGrpcSecurity, readInt, readOptional, readString } from '@gw/service-kit';

/** console settings, each default beside its variable. */
export interface ConsoleConfig {
  host: string;
  /** The web pages (CONSOLE_PORT). */
  httpPort: number;
  /** console.v1 for the operator (ctl console invite). */
  port: number;
  metricsPort: number;
  security: GrpcSecurity;
  maxConnectionAgeMs: number;
  authAddr: string;
  billingAddr: string;
  quotaAddr: string;
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

/** Reads the configuration; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<ConsoleConfig> {
  const httpPort = readInt(env, 'CONSOLE_PORT', 8081);
  return Object.freeze({
    host: readString(env, 'BIND_HOST', '0.0.0.0'),
    httpPort,
    port: readInt(env, 'CONSOLE_GRPC_PORT', 50054),
    metricsPort: readInt(env, 'CONSOLE_METRICS_PORT', 9104),
    security: readGrpcSecurity(env, 'console'),
    maxConnectionAgeMs: readInt(env, 'GRPC_MAX_CONNECTION_AGE_MS', 60_000),
    authAddr: readString(env, 'AUTH_ADDR', '127.0.0.1:50051'),
    billingAddr: readString(env, 'BILLING_ADDR', '127.0.0.1:50053'),
    quotaAddr: readString(env, 'QUOTA_ADDR', '127.0.0.1:50052'),
    grpcTimeoutMs: readInt(env, 'GRPC_TIMEOUT_MS', 1000),
    publicUrl: readString(env, 'CONSOLE_PUBLIC_URL', `http://127.0.0.1:${httpPort}`).replace(/\/+$/, ''),
    secureCookies: readBool(env, 'CONSOLE_SECURE_COOKIES', false),
    trustProxyHops: readInt(env, 'CONSOLE_TRUST_PROXY_HOPS', 0),
    sessionTtlMs: readInt(env, 'CONSOLE_SESSION_TTL_MS', 8 * 3600_000),
    signInMaxFailures: readInt(env, 'SIGN_IN_MAX_FAILURES', 5),
    signInWindowMs: readInt(env, 'SIGN_IN_WINDOW_MS', 15 * 60_000),
    signInSlowIntervalMs: readInt(env, 'SIGN_IN_SLOW_INTERVAL_MS', 30_000),
    databaseUrl: readOptional(env, 'DATABASE_URL'),
    dataDir: `${readString(env, 'DATA_DIR', '.data')}/console`,
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 10000),
    logLevel: readString(env, 'LOG_LEVEL', 'info') as LogLevel,
  });
}
