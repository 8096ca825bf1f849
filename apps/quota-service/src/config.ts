import { Env, GrpcSecurity, LogLevel, readBool, readInt, readOptional, readGrpcSecurity, readString } from '@gw/service-kit';
import { CreditLinePolicy } from './domain/admission';
import { FreeTierLimits } from './domain/free-request';
import { ReaperOptions } from './domain/lease-reaper';
import { LineReturnOptions } from './domain/line-returner';
import { ForwarderOptions } from './domain/settle-forwarder';
import { parsePeakHours } from './domain/peak-hours';
import { FreeTierSettings } from './store/free-tier/free-tier-store';
import { KeyLayout } from './store/redis/redis-keys';

/** Where and how the bills of finished requests reach billing-service. */
export interface SettleDelivery extends ForwarderOptions {
  billingAddr: string;
  /** Deadline of each call to billing-service. */
  grpcTimeoutMs: number;
  /** Bills another replica was handed this long ago, unacknowledged, are taken over. */
  claimIdleMs: number;
}

/** The leases of running requests: how long one lives unrenewed, and how it is reaped. */
export interface LeaseSettings extends ReaperOptions {
  ttlMs: number;
}

/** quota-service settings, each default beside its variable. */
export interface QuotaConfig {
  host: string;
  port: number;
  metricsPort: number;
  security: GrpcSecurity;
  maxConnectionAgeMs: number;
  /** Unset, with REDIS_CLUSTER_NODES unset too: state is kept in memory, which is only correct with one replica. */
  redisUrl: string | undefined;
  /** REDIS_CLUSTER_NODES: `host:port` of one or more nodes of a Redis Cluster (the client finds the rest); instead of REDIS_URL. */
  redisClusterNodes: string[] | undefined;
  redisKeyPrefix: string;
  /**
   * QUOTA_KEY_LAYOUT, how the keys in Redis are named (store/redis/redis-keys.ts). `account` (default):
   * the names every release before used, each account's keys under its own hash tag and the
   * leases, outbox and idle lines in global keys, for a standalone Redis; replicas of older and
   * newer releases on one Redis share counts, places, lines and leases only under the same names,
   * so a rolling upgrade keeps it. `shard`: the accounts spread over 64 shards, each account's keys
   * beside its shard's leases, outbox and idle lines in one hash slot, so that every script touches
   * one slot, as Redis Cluster requires. Switching names every key anew: stop all replicas, or
   * start the new layout on an empty Redis (or another REDIS_KEY_PREFIX), never both at once.
   */
  redisKeyLayout: KeyLayout;
  /** Deadline of every Redis command. */
  redisTimeoutMs: number;
  requestsPerMinute: number;
  concurrentPlaces: number;
  placeRecoveryMs: number;
  /** MONEY_AUDIT_INTERVAL_MS: how often the store is audited (its holds, lines, leases, places, free pool). */
  moneyAuditIntervalMs: number;
  /** The free tier's settings until an operator changes them (`ctl freetier set`). */
  freeTierDefaults: FreeTierSettings;
  freeTierLimits: FreeTierLimits;
  settleDelivery: SettleDelivery;
  leases: LeaseSettings;
  /** How much an extension of a credit line lends: everything unheld (`all`), or what the request lacks (`need`). */
  linePolicy: CreditLinePolicy;
  /** When idle credit lines go back to billing-service. */
  lineReturns: LineReturnOptions;
  shutdownGraceMs: number;
  logLevel: LogLevel;
}

function atLeast(name: string, value: number, min: number): number {
  if (value < min) throw new Error(`${name} must be at least ${min}, got ${value}`);
  return value;
}

/**
 * A lease lapses `ttlMs` after its last renewal; the reaper looks a few times per lease time (at
 * least once a second) and hands a lapsed lease it could not finish out again one lease time later.
 */
function leaseSettings(ttlMs: number): LeaseSettings {
  return Object.freeze({ ttlMs, intervalMs: Math.min(1000, Math.ceil(ttlMs / 4)), claimMs: ttlMs, batchSize: 50 });
}

function keyLayout(value: string, prefix: string): KeyLayout {
  if (value !== 'account' && value !== 'shard') throw new Error(`QUOTA_KEY_LAYOUT must be account or shard, got ${value}`);
  // A brace in the prefix would be taken for the keys' hash tag.
  if (value === 'shard' && /[{}]/.test(prefix)) throw new Error('REDIS_KEY_PREFIX must hold no { or } with QUOTA_KEY_LAYOUT=shard');
  return value;
}

/** REDIS_CLUSTER_NODES as `host:port,host:port`; undefined when unset. */
function clusterNodes(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const nodes = value.split(',').map((node) => node.trim());
  for (const node of nodes) {
    if (!/^[^\s:,]+:\d{1,5}$/.test(node)) throw new Error(`REDIS_CLUSTER_NODES must be host:port[,host:port...], got ${value}`);
  }
  return nodes;
}

/** Where the Redis stores are: REDIS_URL or REDIS_CLUSTER_NODES, not both; a cluster takes the shard layout (its default there). */
function redisPlace(env: Env, prefix: string): Pick<QuotaConfig, 'redisUrl' | 'redisClusterNodes' | 'redisKeyLayout'> {
  const redisUrl = readOptional(env, 'REDIS_URL');
  const redisClusterNodes = clusterNodes(readOptional(env, 'REDIS_CLUSTER_NODES'));
  if (redisUrl !== undefined && redisClusterNodes !== undefined) throw new Error('set REDIS_URL or REDIS_CLUSTER_NODES, not both');
  const redisKeyLayout = keyLayout(readString(env, 'QUOTA_KEY_LAYOUT', redisClusterNodes ? 'shard' : 'account'), prefix);
  if (redisClusterNodes && redisKeyLayout !== 'shard')
    throw new Error('REDIS_CLUSTER_NODES needs QUOTA_KEY_LAYOUT=shard: the account layout spans hash slots');
  return { redisUrl, redisClusterNodes, redisKeyLayout };
}

function linePolicy(value: string): CreditLinePolicy {
  if (value === 'all' || value === 'need') return value;
  throw new Error(`CREDIT_LINE_POLICY must be all or need, got ${value}`);
}

/** Reads the configuration; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<QuotaConfig> {
  const redisKeyPrefix = readString(env, 'REDIS_KEY_PREFIX', 'gw:');
  return Object.freeze({
    host: readString(env, 'BIND_HOST', '0.0.0.0'),
    port: readInt(env, 'QUOTA_PORT', 50052),
    metricsPort: readInt(env, 'QUOTA_METRICS_PORT', 9102),
    security: readGrpcSecurity(env, 'quota-service'),
    maxConnectionAgeMs: readInt(env, 'GRPC_MAX_CONNECTION_AGE_MS', 60_000),
    ...redisPlace(env, redisKeyPrefix),
    redisKeyPrefix,
    redisTimeoutMs: atLeast('REDIS_TIMEOUT_MS', readInt(env, 'REDIS_TIMEOUT_MS', 200), 1),
    requestsPerMinute: atLeast('RATE_LIMIT_PER_MINUTE', readInt(env, 'RATE_LIMIT_PER_MINUTE', 30), 1),
    concurrentPlaces: atLeast('CONCURRENCY_LIMIT', readInt(env, 'CONCURRENCY_LIMIT', 3), 1),
    placeRecoveryMs: atLeast('PLACE_RECOVERY_SECONDS', readInt(env, 'PLACE_RECOVERY_SECONDS', 130), 1) * 1000,
    moneyAuditIntervalMs: atLeast('MONEY_AUDIT_INTERVAL_MS', readInt(env, 'MONEY_AUDIT_INTERVAL_MS', 600_000), 1000),
    freeTierDefaults: Object.freeze({
      dailyTokens: atLeast('FREE_DAILY_TOKENS', readInt(env, 'FREE_DAILY_TOKENS', 200_000), 0),
      poolTokens: atLeast('FREE_POOL_TOKENS', readInt(env, 'FREE_POOL_TOKENS', 50_000_000), 0),
      paused: readBool(env, 'FREE_TIER_PAUSED', false),
      enabled: readBool(env, 'FREE_TIER_ENABLED', true),
    }),
    freeTierLimits: Object.freeze({
      freeModel: readString(env, 'FREE_MODEL', 'vendor-v4-flash'),
      replyMaxTokens: atLeast('FREE_REPLY_MAX_TOKENS', readInt(env, 'FREE_REPLY_MAX_TOKENS', 2048), 1),
      promptMaxTokens: atLeast('FREE_PROMPT_MAX_TOKENS', readInt(env, 'FREE_PROMPT_MAX_TOKENS', 80_000), 0),
      jsonMaxBytes: atLeast('FREE_JSON_MAX_BYTES', readInt(env, 'FREE_JSON_MAX_BYTES', 320_000), 0),
      newMessageMaxTokens: atLeast('FREE_NEW_MESSAGE_MAX_TOKENS', readInt(env, 'FREE_NEW_MESSAGE_MAX_TOKENS', 65_000), 0),
      newMessagePeakMaxTokens: atLeast('FREE_NEW_MESSAGE_PEAK_MAX_TOKENS', readInt(env, 'FREE_NEW_MESSAGE_PEAK_MAX_TOKENS', 25_000), 0),
      peakHours: parsePeakHours('FREE_PEAK_HOURS_UTC', readString(env, 'FREE_PEAK_HOURS_UTC', '0-17')),
      reservationTtlMs: atLeast('FREE_RESERVATION_TTL_SECONDS', readInt(env, 'FREE_RESERVATION_TTL_SECONDS', 900), 1) * 1000,
    }),
    settleDelivery: Object.freeze({
      billingAddr: readString(env, 'BILLING_ADDR', '127.0.0.1:50053'),
      grpcTimeoutMs: atLeast('GRPC_TIMEOUT_MS', readInt(env, 'GRPC_TIMEOUT_MS', 1000), 1),
      pollMs: atLeast('SETTLE_POLL_MS', readInt(env, 'SETTLE_POLL_MS', 250), 1),
      maxBackoffMs: atLeast('SETTLE_MAX_BACKOFF_MS', readInt(env, 'SETTLE_MAX_BACKOFF_MS', 5000), 1),
      batchSize: 256,
      claimIdleMs: atLeast('SETTLE_CLAIM_IDLE_MS', readInt(env, 'SETTLE_CLAIM_IDLE_MS', 30_000), 1),
    }),
    leases: leaseSettings(atLeast('LEASE_TTL_MS', readInt(env, 'LEASE_TTL_MS', 30_000), 100)),
    linePolicy: linePolicy(readString(env, 'CREDIT_LINE_POLICY', 'all')),
    lineReturns: Object.freeze({
      idleMs: atLeast('CREDIT_LINE_IDLE_SECONDS', readInt(env, 'CREDIT_LINE_IDLE_SECONDS', 600), 1) * 1000,
      intervalMs: atLeast('CREDIT_LINE_RETURN_INTERVAL_MS', readInt(env, 'CREDIT_LINE_RETURN_INTERVAL_MS', 10_000), 10),
      batchSize: 100,
    }),
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 10000),
    logLevel: readString(env, 'LOG_LEVEL', 'info') as LogLevel,
  });
}
