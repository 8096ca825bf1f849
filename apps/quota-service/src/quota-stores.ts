import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type Redis from 'ioredis';
import { Logger } from '@gw/service-kit';
import { QuotaConfig } from './config';
import { loadAdmissionScripts } from './store/admission/admission-scripts';
import { loadOutboxScripts } from './store/outbox/outbox-scripts';
import { DUE_MEMBERS } from './store/redis/due-members';
import { AdmissionStore } from './store/admission/admission-store';
import { loadFreeTierScripts } from './store/free-tier/free-tier-scripts';
import { openInMemoryStores } from './store/in-memory-stores';
import { FreeTierStore } from './store/free-tier/free-tier-store';
import { loadLeaseScripts } from './store/leases/lease-scripts';
import { LeaseStore } from './store/leases/lease-store';
import { loadLimitScripts } from './store/limits/limit-scripts';
import { LimitSettings, LimitStore } from './store/limits/limit-store';
import { openRedisClient, openRedisCluster } from './store/redis/open-redis-client';
import { RedisAdmissionStore } from './store/admission/redis-admission-store';
import { RedisFreeTierStore } from './store/free-tier/redis-free-tier-store';
import { RedisLeaseStore } from './store/leases/redis-lease-store';
import { redisKeys } from './store/redis/redis-keys';
import { RedisLimitStore } from './store/limits/redis-limit-store';
import { RedisBillOutbox } from './store/outbox/redis-bill-outbox';
import { RedisStoreAudit } from './store/audit/redis-store-audit';
import { BillOutbox } from './store/outbox/bill-outbox';
import { StoreAuditSource } from './store/audit/store-audit-source';

/** Every store of quota-service, on one Redis connection (or all in memory). */
export interface QuotaStores {
  limits: LimitStore;
  freeTier: FreeTierStore;
  outbox: BillOutbox;
  leases: LeaseStore;
  admission: AdmissionStore;
  /** What the audit reads of the store; none in memory (one replica, nothing to compare). */
  audit?: StoreAuditSource;
  /** Whether the stores survive a restart of this process (Redis) or not (memory). */
  durable: boolean;
  /** Closes the connection they share. */
  close(): Promise<void>;
}

/** The shortest time from its write that a lease is set to lapse in: the lease time, the claim time, or the grace when there is one. */
const shortestLapseMs = ({ ttlMs, claimMs, graceMs }: QuotaConfig['leases']) => Math.min(ttlMs, claimMs, graceMs > 0 ? graceMs : ttlMs);

/** Opens the stores in Redis at REDIS_URL, or in the Redis Cluster of REDIS_CLUSTER_NODES, with the keys of QUOTA_KEY_LAYOUT; in memory when neither is set (one replica only). */
export async function openQuotaStores(config: QuotaConfig, logger: Logger): Promise<QuotaStores> {
  const settings: LimitSettings = {
    requestsPerMinute: config.requestsPerMinute,
    concurrentPlaces: config.concurrentPlaces,
    placeRecoveryMs: config.placeRecoveryMs,
  };
  if (!config.redisUrl && !config.redisClusterNodes) {
    logger.warn(
      'REDIS_URL and REDIS_CLUSTER_NODES unset: limits, free tier, credit lines, leases and unsent bills are kept in memory, correct for one replica only',
    );
    const memory = openInMemoryStores(settings, config.freeTierDefaults);
    return { ...memory, durable: false, close: () => memory.limits.close() };
  }
  const onReady = async (client: Redis) => {
    await Promise.all([
      loadLimitScripts(client),
      loadFreeTierScripts(client),
      loadLeaseScripts(client),
      loadAdmissionScripts(client),
      loadOutboxScripts(client),
      DUE_MEMBERS.load(client),
    ]);
  };
  const client = config.redisClusterNodes
    ? await openRedisCluster(config.redisClusterNodes, { commandTimeoutMs: config.redisTimeoutMs, onReady }, logger)
    : await openRedisClient({ url: config.redisUrl as string, commandTimeoutMs: config.redisTimeoutMs, onReady }, logger);
  const keys = redisKeys(config.redisKeyLayout, config.redisKeyPrefix);
  const limits = new RedisLimitStore(client, settings, { keys });
  const outbox = new RedisBillOutbox(client, {
    keys,
    consumer: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    claimIdleMs: config.billDelivery.claimIdleMs,
  });
  return {
    limits,
    freeTier: new RedisFreeTierStore(client, config.freeTierDefaults, { keys }),
    outbox,
    leases: new RedisLeaseStore(client, { keys, shortestLapseMs: shortestLapseMs(config.leases) }),
    admission: new RedisAdmissionStore(client, settings, { keys, outboxAppends: outbox }),
    audit: new RedisStoreAudit(client, keys, config.redisKeyPrefix),
    durable: true,
    close: () => limits.close(),
  };
}
