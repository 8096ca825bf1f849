import { QUOTA_SETTINGS } from '@gw/app-settings';
import { Env, GrpcServerSettings, LogLevel, readGrpcServerSettings, readSettings, SettingsValues } from '@gw/service-kit';
import { CreditLinePolicy } from './domain/admission';
import { FreeTierLimits } from './domain/free-request';
import { ReaperOptions } from './domain/lease-reaper';
import { LineReturnOptions } from './domain/line-returner';
import { ForwarderOptions } from './domain/bill-forwarder';
import { parsePeakHours } from './domain/peak-hours';
import { FreeTierSettings } from './store/free-tier/free-tier-store';
import { KeyLayout } from './store/redis/redis-keys';

/** Where and how the bills of finished requests reach billing-service. */
export interface BillDelivery extends ForwarderOptions {
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
export interface QuotaConfig extends GrpcServerSettings {
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
  billDelivery: BillDelivery;
  leases: LeaseSettings;
  /** How much an extension of a credit line lends: everything unheld (`all`), or what the request lacks (`need`). */
  linePolicy: CreditLinePolicy;
  /** When idle credit lines go back to billing-service. */
  lineReturns: LineReturnOptions;
  shutdownGraceMs: number;
  logLevel: LogLevel;
}

/**
 * A lease lapses `ttlMs` after its last renewal; the reaper looks a few times per lease time (at
 * least once a second) and hands a lapsed lease it could not finish out again one lease time later.
 */
function leaseSettings(ttlMs: number, graceMs: number): LeaseSettings {
  return Object.freeze({ ttlMs, intervalMs: Math.min(1000, Math.ceil(ttlMs / 4)), claimMs: ttlMs, batchSize: 50, graceMs });
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
function redisPlace(s: SettingsValues<typeof QUOTA_SETTINGS>): Pick<QuotaConfig, 'redisUrl' | 'redisClusterNodes' | 'redisKeyLayout'> {
  const redisUrl = s.REDIS_URL;
  const redisClusterNodes = clusterNodes(s.REDIS_CLUSTER_NODES);
  if (redisUrl !== undefined && redisClusterNodes !== undefined) throw new Error('set REDIS_URL or REDIS_CLUSTER_NODES, not both');
  const redisKeyLayout = keyLayout(s.QUOTA_KEY_LAYOUT ?? (redisClusterNodes ? 'shard' : 'account'), s.REDIS_KEY_PREFIX);
  if (redisClusterNodes && redisKeyLayout !== 'shard')
    throw new Error('REDIS_CLUSTER_NODES needs QUOTA_KEY_LAYOUT=shard: the account layout spans hash slots');
  return { redisUrl, redisClusterNodes, redisKeyLayout };
}

function linePolicy(value: string): CreditLinePolicy {
  if (value === 'all' || value === 'need') return value;
  throw new Error(`CREDIT_LINE_POLICY must be all or need, got ${value}`);
}

/** Reads the configuration through QUOTA_SETTINGS and readGrpcServerSettings; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<QuotaConfig> {
  const s = readSettings(env, QUOTA_SETTINGS);
  return Object.freeze({
    ...readGrpcServerSettings(env, s, 'quota-service', { port: s.QUOTA_PORT, metricsPort: s.QUOTA_METRICS_PORT }),
    ...redisPlace(s),
    redisKeyPrefix: s.REDIS_KEY_PREFIX,
    redisTimeoutMs: s.REDIS_TIMEOUT_MS,
    requestsPerMinute: s.RATE_LIMIT_PER_MINUTE,
    concurrentPlaces: s.CONCURRENCY_LIMIT,
    placeRecoveryMs: s.PLACE_RECOVERY_SECONDS * 1000,
    moneyAuditIntervalMs: s.MONEY_AUDIT_INTERVAL_MS,
    freeTierDefaults: Object.freeze({
      dailyTokens: s.FREE_DAILY_TOKENS,
      poolTokens: s.FREE_POOL_TOKENS,
      paused: s.FREE_TIER_PAUSED,
      enabled: s.FREE_TIER_ENABLED,
    }),
    freeTierLimits: Object.freeze({
      freeModel: s.FREE_MODEL,
      replyMaxTokens: s.FREE_REPLY_MAX_TOKENS,
      promptMaxTokens: s.FREE_PROMPT_MAX_TOKENS,
      jsonMaxBytes: s.FREE_JSON_MAX_BYTES,
      newMessageMaxTokens: s.FREE_NEW_MESSAGE_MAX_TOKENS,
      newMessagePeakMaxTokens: s.FREE_NEW_MESSAGE_PEAK_MAX_TOKENS,
      peakHours: parsePeakHours('FREE_PEAK_HOURS_UTC', s.FREE_PEAK_HOURS_UTC),
      reservationTtlMs: s.FREE_RESERVATION_TTL_SECONDS * 1000,
    }),
    billDelivery: Object.freeze({
      billingAddr: s.BILLING_ADDR,
      grpcTimeoutMs: s.GRPC_TIMEOUT_MS,
      pollMs: s.SETTLE_POLL_MS,
      maxBackoffMs: s.SETTLE_MAX_BACKOFF_MS,
      batchSize: 256,
      claimIdleMs: s.SETTLE_CLAIM_IDLE_MS,
    }),
    leases: leaseSettings(s.LEASE_TTL_MS, s.LAPSE_GRACE_MS),
    linePolicy: linePolicy(s.CREDIT_LINE_POLICY),
    lineReturns: Object.freeze({
      idleMs: s.CREDIT_LINE_IDLE_SECONDS * 1000,
      intervalMs: s.CREDIT_LINE_RETURN_INTERVAL_MS,
      batchSize: 100,
    }),
    shutdownGraceMs: s.SHUTDOWN_GRACE_MS,
    logLevel: s.LOG_LEVEL as LogLevel,
  });
}
