import { Env, LogLevel, readInt, readOptional, readString } from '@gw/service-kit';

/** quota-service settings, each default beside its variable. */
export interface QuotaConfig {
  host: string;
  port: number;
  /** Unset: state is kept in memory, which is only correct with one replica. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** Deadline of every Redis command. */
  redisTimeoutMs: number;
  requestsPerMinute: number;
  concurrentPlaces: number;
  placeRecoveryMs: number;
  shutdownGraceMs: number;
  logLevel: LogLevel;
}

function atLeast(name: string, value: number, min: number): number {
  if (value < min) throw new Error(`${name} must be at least ${min}, got ${value}`);
  return value;
}

/** Reads the configuration; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<QuotaConfig> {
  return Object.freeze({
    host: readString(env, 'BIND_HOST', '0.0.0.0'),
    port: readInt(env, 'QUOTA_PORT', 50052),
    redisUrl: readOptional(env, 'REDIS_URL'),
    redisKeyPrefix: readString(env, 'REDIS_KEY_PREFIX', 'gw:'),
    redisTimeoutMs: atLeast('REDIS_TIMEOUT_MS', readInt(env, 'REDIS_TIMEOUT_MS', 200), 1),
    requestsPerMinute: atLeast('RATE_LIMIT_PER_MINUTE', readInt(env, 'RATE_LIMIT_PER_MINUTE', 30), 1),
    concurrentPlaces: atLeast('CONCURRENCY_LIMIT', readInt(env, 'CONCURRENCY_LIMIT', 3), 1),
    placeRecoveryMs: atLeast('PLACE_RECOVERY_SECONDS', readInt(env, 'PLACE_RECOVERY_SECONDS', 130), 1) * 1000,
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 10000),
    logLevel: readString(env, 'LOG_LEVEL', 'info') as LogLevel,
  });
}
