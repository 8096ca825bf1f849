import { Env, LogLevel, readInt, readOptional, readString } from '@gw/service-kit';

/** provider-sim settings, each default beside its variable. */
export interface ProviderSimConfig {
  host: string;
  port: number;
  /** When set, chat requests must carry `Authorization: Bearer <apiKey>`; otherwise any key is taken. */
  apiKey: string | undefined;
  shutdownGraceMs: number;
  logLevel: LogLevel;
}

/** Reads the configuration; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<ProviderSimConfig> {
  return Object.freeze({
    host: readString(env, 'BIND_HOST', '0.0.0.0'),
    port: readInt(env, 'PROVIDER_SIM_PORT', 8090),
    apiKey: readOptional(env, 'PROVIDER_SIM_API_KEY'),
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 10000),
    logLevel: readString(env, 'LOG_LEVEL', 'info') as LogLevel,
  });
}
