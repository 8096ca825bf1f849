import { AUTH_SETTINGS } from '@gw/app-settings';
import { Env, GrpcSecurity, LogLevel, readGrpcSecurity, readSettings } from '@gw/service-kit';

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

/** Reads the configuration through AUTH_SETTINGS and readGrpcSecurity; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<AuthConfig> {
  const s = readSettings(env, AUTH_SETTINGS);
  return Object.freeze({
    host: s.BIND_HOST,
    port: s.AUTH_PORT,
    metricsPort: s.AUTH_METRICS_PORT,
    security: readGrpcSecurity(env, 'auth-service'),
    maxConnectionAgeMs: s.GRPC_MAX_CONNECTION_AGE_MS,
    databaseUrl: s.DATABASE_URL,
    dataDir: `${s.DATA_DIR}/auth`,
    suspensionWhatsapp: s.SUSPENSION_WHATSAPP,
    lastUsedFlushMs: s.LAST_USED_FLUSH_MS,
    shutdownGraceMs: s.SHUTDOWN_GRACE_MS,
    logLevel: s.LOG_LEVEL as LogLevel,
  });
}
