import { Env, GrpcSecurity, LogLevel, readInt, readOptional, readGrpcSecurity, readString } from '@gw/service-kit';

/** auth-service settings, each default beside its variable. */
export interface AuthConfig {
  host: string;
  port: number;
  metricsPort: number;
  security: GrpcSecurity;
  maxConnectionAgeMs: number;
  databaseUrl: string | undefined;
  dataDir: string;
  suspensionWhatsapp: string;
  lastUsedFlushMs: number;
  shutdownGraceMs: number;
  logLevel: LogLevel;
}

/** Reads the configuration; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<AuthConfig> {
  return Object.freeze({
    host: readString(env, 'BIND_HOST', '0.0.0.0'),
    port: readInt(env, 'AUTH_PORT', 50051),
    metricsPort: readInt(env, 'AUTH_METRICS_PORT', 9101),
    security: readGrpcSecurity(env, 'auth-service'),
    maxConnectionAgeMs: readInt(env, 'GRPC_MAX_CONNECTION_AGE_MS', 60_000),
    databaseUrl: readOptional(env, 'DATABASE_URL'),
    dataDir: `${readString(env, 'DATA_DIR', '.data')}/auth`,
    suspensionWhatsapp: readString(env, 'SUSPENSION_WHATSAPP', '+218910000000'),
    lastUsedFlushMs: readInt(env, 'LAST_USED_FLUSH_MS', 1000),
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 10000),
    logLevel: readString(env, 'LOG_LEVEL', 'info') as LogLevel,
  });
}
