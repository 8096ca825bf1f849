import { Logger, startGrpcServer } from '@gw/service-kit';
import { BillingClient } from './clients/billing-client';
import { PriceWatch } from './clients/price-watch';
import { QuotaConfig } from './config';
import { Admission } from './domain/admission';
import { FreeTierGate } from './domain/free-tier-gate';
import { LeaseReaper } from './domain/lease-reaper';
import { LineExtensionBatcher } from './domain/line-extension-batcher';
import { LineReturner } from './domain/line-returner';
import { PriceBook } from './domain/price-book';
import { AccountLimits } from './domain/account-limits';
import { RequestFinisher } from './domain/request-finisher';
import { RequestLeases } from './domain/request-leases';
import { BillForwarder } from './domain/bill-forwarder';
import { storeAuditOf } from './domain/store-audit';
import { quotaGrpc } from './grpc/quota-grpc';
import { olderRelease } from './legacy/older-release';
import { watchOutbox } from './quota-metrics';
import { openQuotaStores } from './quota-stores';

/** Without a price table, an Admit waits this long for the watch to reopen (a restart of billing-service, or of this replica). */
const PRICE_WAIT_MS = 250;

/** A running quota-service. */
export interface QuotaApp {
  port: number;
  /** Health to NOT_SERVING, finish running calls, stop the background loops and the price watch, then close the store. */
  stop(): Promise<void>;
}

/**
 * Opens the stores (Redis, or memory when REDIS_URL is unset), watches billing-service's prices,
 * serves quota.v1.Quota plus health, forwards the bills of finished requests to billing-service,
 * finishes the requests whose leases lapsed and gives idle credit lines back.
 */
export async function startQuotaApp(config: QuotaConfig, logger: Logger): Promise<QuotaApp> {
  const stores = await openQuotaStores(config, logger);
  const billing = new BillingClient(config.billDelivery.billingAddr, config.security, config.billDelivery.grpcTimeoutMs);
  const prices = new PriceBook();
  const priceWatch = new PriceWatch(billing, prices, logger);
  const older = olderRelease(stores, billing, logger);
  const finisher = new RequestFinisher(stores, logger, older.finisher);
  const freeTier = new FreeTierGate(stores.freeTier, config.freeTierLimits);
  const lines = new LineReturner(stores.admission, billing, config.lineReturns, logger);
  const domain = {
    limits: new AccountLimits(stores.limits),
    freeTier,
    finisher,
    leases: new RequestLeases(stores.leases, stores.admission, config.leases.ttlMs, logger, older.renewals),
    admission: new Admission(
      stores.admission,
      prices,
      new LineExtensionBatcher(billing),
      freeTier,
      { leaseTtlMs: config.leases.ttlMs, linePolicy: config.linePolicy, priceWaitMs: PRICE_WAIT_MS },
      logger,
    ),
    lines,
    storeAudit:
      stores.audit &&
      storeAuditOf({
        source: stores.audit,
        freeTier: stores.freeTier,
        linesOf: (ids) => billing.linesOf(ids),
        placeMaxAgeMs: config.placeRecoveryMs,
      }),
    freeTierTrail: billing,
  };
  const server = await startGrpcServer(config, [quotaGrpc(domain, logger, older.calls)], logger).catch(async (err: unknown) => {
    billing.close();
    await stores.close();
    throw err;
  });
  const forwarder = new BillForwarder(stores.outbox, billing, config.billDelivery, logger, older.deliveries);
  watchOutbox(stores.outbox);
  const reaper = new LeaseReaper(stores.leases, finisher, config.leases, logger);
  priceWatch.start();
  forwarder.start();
  reaper.start();
  lines.start();
  domain.storeAudit?.watch(config.moneyAuditIntervalMs, logger);
  logger.info('listening', { port: server.port, store: config.redisClusterNodes ? 'redis cluster' : config.redisUrl ? 'redis' : 'memory' });
  return {
    port: server.port,
    stop: async () => {
      server.setNotServing();
      await server.stop(config.shutdownGraceMs);
      priceWatch.stop();
      await Promise.all([reaper.stop(), lines.stop(), domain.storeAudit?.stop()]);
      // Bills in memory would be lost with this process: try to deliver them first.
      await forwarder.stop(stores.durable ? 0 : config.shutdownGraceMs);
      billing.close();
      await stores.close();
    },
  };
}
