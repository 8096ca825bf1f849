import { PROVIDER_SIM_SETTINGS } from '@gw/app-settings';
import { Env, LogLevel, readSettings } from '@gw/service-kit';

/** provider-sim settings, each default beside its variable. */
export interface ProviderSimConfig {
  host: string;
  port: number;
  /** When set, chat requests must carry `Authorization: Bearer <apiKey>`; otherwise any key is taken. */
  apiKey: string | undefined;
  shutdownGraceMs: number;
  logLevel: LogLevel;
}

/** Reads the configuration through PROVIDER_SIM_SETTINGS; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<ProviderSimConfig> {
  const s = readSettings(env, PROVIDER_SIM_SETTINGS);
  return Object.freeze({
    host: s.BIND_HOST,
    port: s.PROVIDER_SIM_PORT,
    apiKey: s.PROVIDER_SIM_API_KEY,
    shutdownGraceMs: s.SHUTDOWN_GRACE_MS,
    logLevel: s.LOG_LEVEL as LogLevel,
  });
}
