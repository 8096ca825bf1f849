import { resolve } from 'node:path';
import { loadConfig } from './config';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      host: '0.0.0.0',
      port: 50052,
      metricsPort: 9102,
      security: { kind: 'mtls', dir: resolve('.data/tls/quota-service'), refreshMs: 60_000 },
      maxConnectionAgeMs: 60_000,
      redisUrl: undefined,
      redisClusterNodes: undefined,
      redisKeyPrefix: 'gw:',
      redisKeyLayout: 'account',
      redisTimeoutMs: 200,
      requestsPerMinute: 30,
      concurrentPlaces: 3,
      placeRecoveryMs: 130_000,
      moneyAuditIntervalMs: 600_000,
      freeTierDefaults: { dailyTokens: 200_000, poolTokens: 50_000_000, paused: false, enabled: true },
      freeTierLimits: {
        freeModel: 'vendor-v4-flash',
        replyMaxTokens: 2048,
        promptMaxTokens: 80_000,
        jsonMaxBytes: 320_000,
        newMessageMaxTokens: 65_000,
        newMessagePeakMaxTokens: 25_000,
        peakHours: { startHour: 0, endHour: 17 },
        reservationTtlMs: 900_000,
      },
      billDelivery: {
        billingAddr: '127.0.0.1:50053',
        grpcTimeoutMs: 1000,
        pollMs: 250,
        maxBackoffMs: 5000,
        batchSize: 256,
        claimIdleMs: 30_000,
      },
      leases: { ttlMs: 30_000, intervalMs: 1000, claimMs: 30_000, batchSize: 50, graceMs: 120_000 },
      linePolicy: 'all',
      lineReturns: { idleMs: 600_000, intervalMs: 10_000, batchSize: 100 },
      shutdownGraceMs: 10_000,
      logLevel: 'info',
    });
  });

  it('reads the free tier and the delivery of bills', () => {
    const config = loadConfig({
      FREE_DAILY_TOKENS: '1000',
      FREE_POOL_TOKENS: '0',
      FREE_TIER_PAUSED: 'true',
      FREE_TIER_ENABLED: 'false',
      FREE_MODEL: 'vendor-v5-mini',
      FREE_REPLY_MAX_TOKENS: '512',
      FREE_PROMPT_MAX_TOKENS: '4000',
      FREE_JSON_MAX_BYTES: '9000',
      FREE_NEW_MESSAGE_MAX_TOKENS: '3000',
      FREE_NEW_MESSAGE_PEAK_MAX_TOKENS: '1000',
      FREE_PEAK_HOURS_UTC: '22-6',
      FREE_RESERVATION_TTL_SECONDS: '60',
      BILLING_ADDR: 'billing:50053',
      GRPC_TIMEOUT_MS: '300',
      SETTLE_POLL_MS: '10',
      SETTLE_MAX_BACKOFF_MS: '100',
      SETTLE_CLAIM_IDLE_MS: '2000',
    });
    expect(config.freeTierDefaults).toEqual({ dailyTokens: 1000, poolTokens: 0, paused: true, enabled: false });
    expect(config.freeTierLimits).toEqual({
      freeModel: 'vendor-v5-mini',
      replyMaxTokens: 512,
      promptMaxTokens: 4000,
      jsonMaxBytes: 9000,
      newMessageMaxTokens: 3000,
      newMessagePeakMaxTokens: 1000,
      peakHours: { startHour: 22, endHour: 6 },
      reservationTtlMs: 60_000,
    });
    expect(config.billDelivery).toEqual({
      billingAddr: 'billing:50053',
      grpcTimeoutMs: 300,
      pollMs: 10,
      maxBackoffMs: 100,
      batchSize: 256,
      claimIdleMs: 2000,
    });
    expect(Object.isFrozen(config.freeTierLimits)).toBe(true);
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
    expect(loadConfig({ LEASE_TTL_MS: '2000' }).leases).toEqual({
      ttlMs: 2000,
      intervalMs: 500,
      claimMs: 2000,
      batchSize: 50,
      graceMs: 120_000,
    });
    expect(loadConfig({ LAPSE_GRACE_MS: '0' }).leases).toMatchObject({ graceMs: 0 });
    expect(() => loadConfig({ LAPSE_GRACE_MS: '-1' })).toThrow(/LAPSE_GRACE_MS/);
    expect(() => loadConfig({ LEASE_TTL_MS: '99' })).toThrow(/LEASE_TTL_MS/);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it("reads the key layout: today's names unless told, a shard layout only with a prefix that is no hash tag", () => {
    expect(loadConfig({ QUOTA_KEY_LAYOUT: 'shard' }).redisKeyLayout).toBe('shard');
    expect(loadConfig({ QUOTA_KEY_LAYOUT: 'account', REDIS_KEY_PREFIX: '{gw}:' }).redisKeyLayout).toBe('account');
    expect(() => loadConfig({ QUOTA_KEY_LAYOUT: 'cluster' })).toThrow('QUOTA_KEY_LAYOUT must be account or shard');
    expect(() => loadConfig({ QUOTA_KEY_LAYOUT: 'shard', REDIS_KEY_PREFIX: '{gw}:' })).toThrow('REDIS_KEY_PREFIX must hold no { or }');
  });

  it('reads a Redis Cluster (REDIS_CLUSTER_NODES), instead of REDIS_URL, in the shard layout', () => {
    expect(loadConfig({ REDIS_CLUSTER_NODES: 'redis-0:6379, 10.0.0.7:7000' })).toMatchObject({
      redisUrl: undefined,
      redisClusterNodes: ['redis-0:6379', '10.0.0.7:7000'],
      redisKeyLayout: 'shard',
    });
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'redis-0:6379', REDIS_URL: 'redis://redis:6379/0' })).toThrow(
      'set REDIS_URL or REDIS_CLUSTER_NODES, not both',
    );
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'redis-0:6379', QUOTA_KEY_LAYOUT: 'account' })).toThrow(
      'REDIS_CLUSTER_NODES needs QUOTA_KEY_LAYOUT=shard',
    );
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'redis-0' })).toThrow('REDIS_CLUSTER_NODES must be host:port');
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'redis://redis-0:6379' })).toThrow('REDIS_CLUSTER_NODES must be host:port');
  });

  it("reads the credit lines' policy and when idle lines go back", () => {
    const config = loadConfig({ CREDIT_LINE_POLICY: 'need', CREDIT_LINE_IDLE_SECONDS: '60', CREDIT_LINE_RETURN_INTERVAL_MS: '500' });
    expect(config).toMatchObject({ linePolicy: 'need', lineReturns: { idleMs: 60_000, intervalMs: 500, batchSize: 100 } });
    expect(() => loadConfig({ CREDIT_LINE_POLICY: 'some' })).toThrow('CREDIT_LINE_POLICY must be all or need');
    expect(() => loadConfig({ CREDIT_LINE_IDLE_SECONDS: '0' })).toThrow('CREDIT_LINE_IDLE_SECONDS must be at least 1');
  });

  it('stops the start on a limit that is not a positive whole number', () => {
    expect(() => loadConfig({ CONCURRENCY_LIMIT: '0' })).toThrow('CONCURRENCY_LIMIT must be at least 1');
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: 'many' })).toThrow('RATE_LIMIT_PER_MINUTE must be a whole number');
    expect(() => loadConfig({ FREE_DAILY_TOKENS: '-1' })).toThrow('FREE_DAILY_TOKENS must be at least 0');
    expect(() => loadConfig({ FREE_TIER_PAUSED: 'yes' })).toThrow('FREE_TIER_PAUSED must be true or false');
    expect(() => loadConfig({ FREE_PEAK_HOURS_UTC: '9am-5pm' })).toThrow('FREE_PEAK_HOURS_UTC must be START-END');
  });
});
