import { loadConfig } from './config';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      host: '0.0.0.0',
      port: 50052,
      redisUrl: undefined,
      redisKeyPrefix: 'gw:',
      redisTimeoutMs: 200,
      requestsPerMinute: 30,
      concurrentPlaces: 3,
      placeRecoveryMs: 130_000,
      shutdownGraceMs: 10_000,
      logLevel: 'info',
    });
  });

  it('reads every variable and returns a frozen object', () => {
    const config = loadConfig({
      QUOTA_PORT: '6000',
      BIND_HOST: '127.0.0.1',
      REDIS_URL: 'redis://redis:6379/2',
      REDIS_KEY_PREFIX: 'x:',
      RATE_LIMIT_PER_MINUTE: '60',
      CONCURRENCY_LIMIT: '5',
      PLACE_RECOVERY_SECONDS: '10',
      REDIS_TIMEOUT_MS: '50',
      SHUTDOWN_GRACE_MS: '100',
      LOG_LEVEL: 'debug',
    });
    expect(config).toMatchObject({ port: 6000, host: '127.0.0.1', redisUrl: 'redis://redis:6379/2', redisKeyPrefix: 'x:' });
    expect(config).toMatchObject({ requestsPerMinute: 60, concurrentPlaces: 5, placeRecoveryMs: 10_000, redisTimeoutMs: 50 });
    expect(config).toMatchObject({ shutdownGraceMs: 100, logLevel: 'debug' });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('stops the start on a limit that is not a positive whole number', () => {
    expect(() => loadConfig({ CONCURRENCY_LIMIT: '0' })).toThrow('CONCURRENCY_LIMIT must be at least 1');
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: 'many' })).toThrow('RATE_LIMIT_PER_MINUTE must be a whole number');
  });
});
