import { quotaV1 } from '@gw/contracts';
import { Logger, startGrpcServer } from '@gw/service-kit';
import { BillingClient } from './clients/billing-client';
import { QuotaConfig } from './config';
import { FreeTierGate } from './domain/free-tier-gate';
import { LeaseReaper } from './domain/lease-reaper';
import { QuotaLedger } from './domain/quota-ledger';
import { RequestFinisher } from './domain/request-finisher';
import { RequestLeases } from './domain/request-leases';
import { SettleForwarder } from './domain/settle-forwarder';
import { quotaGrpc } from './grpc/quota-grpc';
import { watchOutbox } from './quota-metrics';
import { openQuotaStores } from './quota-stores';

/** A running quota-service. */
export interface QuotaApp {
  port: number;
  /** Health to NOT_SERVING, finish running calls, stop forwarding bills, then close the store. */
  stop(): Promise<void>;
}

/**
 * Opens the stores (Redis, or memory when REDIS_URL is unset), serves quota.v1.Quota plus
 * health, forwards the bills of finished requests to billing-service, and finishes the
 * requests whose leases lapsed.
 */
export async function startQuotaApp(config: QuotaConfig, logger: Logger): Promise<QuotaApp> {
  const stores = await openQuotaStores(config, logger);
  const billing = new BillingClient(config.settleDelivery.billingAddr, config.security, config.settleDelivery.grpcTimeoutMs);
  const finisher = new RequestFinisher(stores.limits, stores.freeTier, stores.outbox, stores.leases);
  const domain = {
    ledger: new QuotaLedger(stores.limits),
    freeTier: new FreeTierGate(stores.freeTier, config.freeTierLimits),
    finisher,
    leases: new RequestLeases(stores.leases, config.leases.ttlMs, billing, logger),
  };
  const server = await startGrpcServer(config, [
    { name: 'quota.v1.Quota', definition: quotaV1.QuotaService, implementation: quotaGrpc(domain, logger) },
  ], logger).catch(async (err: unknown) => {
    billing.close();
    await stores.close();
    throw err;
  });
  const forwarder = new SettleForwarder(stores.outbox, billing, config.settleDelivery, logger);
  watchOutbox(stores.outbox);
  const reaper = new LeaseReaper(stores.leases, finisher, config.leases, logger);
  forwarder.start();
  reaper.start();
  logger.info('listening', { port: server.port, store: config.redisUrl ? 'redis' : 'memory' });
  return {
    port: server.port,
    stop: async () => {
      server.setNotServing();
      await server.stop(config.shutdownGraceMs);
      await reaper.stop();
      // Bills in memory would be lost with this process: try to deliver them first.
      await forwarder.stop(stores.durable ? 0 : config.shutdownGraceMs);
      billing.close();
      await stores.close();
    },
  };
}
