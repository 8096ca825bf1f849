import { Env, LogLevel, readInt, readString } from '@gw/service-kit';

/** edge settings, each default beside its variable. */
export interface EdgeConfig {
  host: string;
  port: number;
  adminPort: number;
  authAddr: string;
  quotaAddr: string;
  billingAddr: string;
  providerBaseUrl: string;
  providerApiKey: string;
  grpcTimeoutMs: number;
  providerSilenceMs: number;
  bodyLimitBytes: number;
  shutdownGraceMs: number;
  logLevel: LogLevel;
}

/** Reads the configuration; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<EdgeConfig> {
  return Object.freeze({
    host: readString(env, 'BIND_HOST', '0.0.0.0'),
    port: readInt(env, 'EDGE_PORT', 8080),
    adminPort: readInt(env, 'EDGE_ADMIN_PORT', 9080),
    authAddr: readString(env, 'AUTH_ADDR', '127.0.0.1:50051'),
    quotaAddr: readString(env, 'QUOTA_ADDR', '127.0.0.1:50052'),
    billingAddr: readString(env, 'BILLING_ADDR', '127.0.0.1:50053'),
    providerBaseUrl: readString(env, 'PROVIDER_BASE_URL', 'http://127.0.0.1:8090/v1').replace(/\/+$/, ''),
    providerApiKey: readString(env, 'PROVIDER_API_KEY', 'sim-key'),
    grpcTimeoutMs: readInt(env, 'GRPC_TIMEOUT_MS', 1000),
    providerSilenceMs: readInt(env, 'PROVIDER_SILENCE_MS', 120_000),
    bodyLimitBytes: readInt(env, 'BODY_LIMIT_BYTES', 2 * 1024 * 1024),
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 30_000),
    logLevel: readString(env, 'LOG_LEVEL', 'info') as LogLevel,
  });
}
