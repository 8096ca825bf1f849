import { Env, GrpcSecurity, LogLevel, readInt, readOptional, readGrpcSecurity, readString } from '@gw/service-kit';

/** billing-service settings, each default beside its variable. */
export interface BillingConfig {
  host: string;
  port: number;
  metricsPort: number;
  security: GrpcSecurity;
  maxConnectionAgeMs: number;
  /** Postgres URL; unset selects the embedded PGlite under `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Holds older than this are released by the sweeper (the request is presumed lost). */
  holdTtlSeconds: number;
  /** How often the sweeper looks for stale holds. */
  holdSweepIntervalMs: number;
  /**
   * How long SetPrice waits for a price watcher (a quota-service replica) to acknowledge a change
   * before its stream is ended, so that it refuses paid work until it has the whole table again.
   */
  priceAckTimeoutMs: number;
  /** How often the books are audited for the money_audit_violations gauge. */
  moneyAuditIntervalMs: number;
  shutdownGraceMs: number;
  logLevel: LogLevel;
}

/** Reads the configuration; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<BillingConfig> {
  return Object.freeze({
    host: readString(env, 'BIND_HOST', '0.0.0.0'),
    port: readInt(env, 'BILLING_PORT', 50053),
    metricsPort: readInt(env, 'BILLING_METRICS_PORT', 9103),
    security: readGrpcSecurity(env, 'billing-service'),
    maxConnectionAgeMs: readInt(env, 'GRPC_MAX_CONNECTION_AGE_MS', 60_000),
    databaseUrl: readOptional(env, 'DATABASE_URL'),
    dataDir: `${readString(env, 'DATA_DIR', '.data')}/billing`,
    holdTtlSeconds: readInt(env, 'HOLD_TTL_SECONDS', 900),
    holdSweepIntervalMs: readInt(env, 'HOLD_SWEEP_INTERVAL_MS', 60000),
    priceAckTimeoutMs: readInt(env, 'PRICE_ACK_TIMEOUT_MS', 5000),
    moneyAuditIntervalMs: readInt(env, 'MONEY_AUDIT_INTERVAL_MS', 600_000),
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 10000),
    logLevel: readString(env, 'LOG_LEVEL', 'info') as LogLevel,
  });
}
