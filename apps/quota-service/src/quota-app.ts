import { quotaV1 } from '@gw/contracts';
import { Logger, startGrpcServer } from '@gw/service-kit';
import { QuotaConfig } from './config';
import { QuotaLedger } from './domain/quota-ledger';
import { quotaGrpc } from './grpc/quota-grpc';
import { InMemoryLimitStore } from './store/in-memory-limit-store';
import { loadLimitScripts } from './store/limit-scripts';
import { LimitSettings, LimitStore } from './store/limit-store';
import { openRedisClient } from './store/open-redis-client';
import { RedisLimitStore } from './store/redis-limit-store';

/** A running quota-service. */
export interface QuotaApp {
  port: number;
  /** Health to NOT_SERVING, finish running calls, then close the store. */
  stop(): Promise<void>;
}

async function openStore(config: QuotaConfig, logger: Logger): Promise<LimitStore> {
  const settings: LimitSettings = {
    requestsPerMinute: config.requestsPerMinute,
    concurrentPlaces: config.concurrentPlaces,
    placeRecoveryMs: config.placeRecoveryMs,
  };
  if (!config.redisUrl) {
    logger.warn('REDIS_URL unset: limits are kept in memory, correct for one replica only');
    return new InMemoryLimitStore(settings);
  }
  const client = await openRedisClient({ url: config.redisUrl, commandTimeoutMs: config.redisTimeoutMs, onReady: loadLimitScripts }, logger);
  return new RedisLimitStore(client, settings, { keyPrefix: config.redisKeyPrefix });
}

/** Opens the limit store (Redis, or memory when REDIS_URL is unset) and serves quota.v1.Quota plus health. */
export async function startQuotaApp(config: QuotaConfig, logger: Logger): Promise<QuotaApp> {
  const store = await openStore(config, logger);
  const server = await startGrpcServer(config.host, config.port, [
    { name: 'quota.v1.Quota', definition: quotaV1.QuotaService, implementation: quotaGrpc(new QuotaLedger(store), logger) },
  ]).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  logger.info('listening', { port: server.port, store: config.redisUrl ? 'redis' : 'memory' });
  return {
    port: server.port,
    stop: async () => {
      server.health.setNotServing();
      await server.stop(config.shutdownGraceMs);
      await store.close();
    },
  };
}
