import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type Redis from 'ioredis';
import { Logger } from '@gw/service-kit';
import { QuotaConfig } from './config';
import { loadFreeTierScripts } from './store/free-tier-scripts';
import { FreeTierStore } from './store/free-tier-store';
import { InMemoryFreeTierStore } from './store/in-memory-free-tier-store';
import { InMemoryLeaseStore } from './store/in-memory-lease-store';
import { InMemoryLimitStore } from './store/in-memory-limit-store';
import { InMemorySettleOutbox } from './store/in-memory-settle-outbox';
import { loadLeaseScripts } from './store/lease-scripts';
import { LeaseStore } from './store/lease-store';
import { loadLimitScripts } from './store/limit-scripts';
import { LimitSettings, LimitStore } from './store/limit-store';
import { openRedisClient } from './store/open-redis-client';
import { RedisFreeTierStore } from './store/redis-free-tier-store';
import { RedisLeaseStore } from './store/redis-lease-store';
import { RedisLimitStore } from './store/redis-limit-store';
import { RedisSettleOutbox } from './store/redis-settle-outbox';
import { SettleOutbox } from './store/settle-outbox';

/** Every store of quota-service, on one Redis connection (or all in memory). */
export interface QuotaStores {
  limits: LimitStore;
  freeTier: FreeTierStore;
  outbox: SettleOutbox;
  leases: LeaseStore;
  /** Whether the stores survive a restart of this process (Redis) or not (memory). */
  durable: boolean;
  /** Closes the connection they share. */
  close(): Promise<void>;
}

/** Opens the stores in Redis at REDIS_URL, or in memory when it is unset (one replica only). */
export async function openQuotaStores(config: QuotaConfig, logger: Logger): Promise<QuotaStores> {
  const settings: LimitSettings = {
    requestsPerMinute: config.requestsPerMinute,
    concurrentPlaces: config.concurrentPlaces,
    placeRecoveryMs: config.placeRecoveryMs,
  };
  if (!config.redisUrl) {
    logger.warn('REDIS_URL unset: limits, free tier, leases and unsent bills are kept in memory, correct for one replica only');
    const limits = new InMemoryLimitStore(settings);
    return { limits, freeTier: new InMemoryFreeTierStore(config.freeTierDefaults), outbox: new InMemorySettleOutbox(), leases: new InMemoryLeaseStore(), durable: false, close: () => limits.close() };
  }
  const onReady = async (client: Redis) => {
    await Promise.all([loadLimitScripts(client), loadFreeTierScripts(client), loadLeaseScripts(client)]);
  };
  const client = await openRedisClient({ url: config.redisUrl, commandTimeoutMs: config.redisTimeoutMs, onReady }, logger);
  const keyPrefix = config.redisKeyPrefix;
  const limits = new RedisLimitStore(client, settings, { keyPrefix });
  return {
    limits,
    freeTier: new RedisFreeTierStore(client, config.freeTierDefaults, { keyPrefix }),
    outbox: new RedisSettleOutbox(client, {
      keyPrefix,
      consumer: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
      claimIdleMs: config.settleDelivery.claimIdleMs,
    }),
    leases: new RedisLeaseStore(client, { keyPrefix }),
    durable: true,
    close: () => limits.close(),
  };
}
