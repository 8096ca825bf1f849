import { Server } from 'node:http';
import express from 'express';
import { Logger, startAdminServer } from '@gw/service-kit';
import { AuthClient } from './clients/auth-client';
import { IdentityWatch } from './clients/identity-watch';
import { KeyUseReporter } from './clients/key-use-reporter';
import { QuotaClient } from './clients/quota-client';
import { EdgeConfig } from './config';
import { CachedKeyLookup } from './domain/cached-key-lookup';
import { KeyCache } from './domain/key-cache';
import { LeaseKeeper } from './domain/lease-keeper';
import { MinuteRefusals } from './domain/minute-refusals';
import { FinishSender } from './domain/finish-sender';
import { ChatAdmission } from './admission/chat-admission';
import { olderReleaseAdmission } from './legacy/older-release-admission';
import { BodyBudget } from './http/guards/body-budget';
import { trackConnections } from './http/server/connection-tracker';
import { errorHandler } from './http/replies/error-handler';
import { methodNotAllowed, notFound } from './http/replies/not-served';
import { refuseLibraryClients } from './http/guards/refuse-library-clients';
import { callerRequestId } from './http/logging/request-id';
import { requestLog } from './http/logging/request-log';
import { startPublicServer } from './http/server/public-server';
import { chatCompletionsRoute } from './routes/chat-completions';
import { getModelRoute, listModelsRoute } from './routes/models';
import { usageRoute } from './routes/usage';
import { ProviderClient } from './upstream/provider-client';

/** A running edge. */
export interface EdgeApp {
  port: number;
  adminPort: number;
  /** Not ready, stop accepting, let requests finish, send their finishes, close connections. */
  stop(): Promise<void>;
}

/** Keys whose authentication the edge keeps at most (about 1 KB each). */
const KEY_CACHE_ENTRIES = 100_000;

/**
 * Accounts refused in the current minute that the edge remembers at most (about 200 bytes each).
 * So many accounts over their limit in one minute would take over 3 million requests; past it,
 * the refusals that would end soonest are forgotten, and quota-service refuses those requests.
 */
const MINUTE_REFUSAL_ENTRIES = 100_000;

/** Starts the public HTTP API and the probe endpoints. */
export async function startEdgeApp(config: EdgeConfig, logger: Logger): Promise<EdgeApp> {
  const authClient = new AuthClient(config.authAddr, config.grpcSecurity, config.grpcTimeoutMs);
  const keyCache = new KeyCache(KEY_CACHE_ENTRIES);
  const identityWatch = new IdentityWatch(authClient, keyCache, logger);
  const keyUses = new KeyUseReporter(authClient, logger);
  const auth = new CachedKeyLookup(authClient, keyCache, keyUses);
  const quota = new QuotaClient(config.quotaAddr, config.grpcSecurity, config.grpcTimeoutMs);
  const provider = new ProviderClient(
    {
      baseUrl: config.providerBaseUrl,
      apiKey: config.providerApiKey,
      readTimeoutMs: config.providerReadTimeoutMs,
      maxConnections: config.providerMaxConnections,
      breaker: config.breaker,
    },
    logger,
  );
  const leases = new LeaseKeeper(quota, config.leaseRenewMs, logger, config.finalBillsMax);
  const finishSender = new FinishSender(quota, leases, logger);
  const minuteRefusals = new MinuteRefusals(MINUTE_REFUSAL_ENTRIES);
  const olderRelease = olderReleaseAdmission(config, { quota, minuteRefusals, finishSender });

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // Paths are exact: /V1/models and /v1/models/ are not served.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  // First, so that every request gets its one log line, refused clients (1010) too.
  app.use(requestLog(logger));
  if (config.blockLibraryClients) app.use(refuseLibraryClients(config.blockedUserAgents));
  app.use(callerRequestId);
  app.post(
    '/v1/chat/completions',
    chatCompletionsRoute({
      auth,
      admission: olderRelease.admission(new ChatAdmission({ quota, minuteRefusals, finishSender })),
      provider,
      finishSender,
      leases,
      bodyLimitBytes: config.bodyLimitBytes,
      bodyBudget: new BodyBudget(config.guard.bodyBudgetBytes),
      providerSilenceMs: config.providerSilenceMs,
    }),
  );
  app.all('/v1/chat/completions', methodNotAllowed('POST'));
  app.get('/v1/models', listModelsRoute(auth));
  app.all('/v1/models', methodNotAllowed('GET'));
  app.get('/v1/models/:id', getModelRoute(auth));
  app.all('/v1/models/:id', methodNotAllowed('GET'));
  app.get('/v1/usage', usageRoute(auth, quota));
  app.all('/v1/usage', methodNotAllowed('GET'));
  app.use(notFound);
  app.use(errorHandler(logger));

  const server: Server = await startPublicServer(app, config.host, config.port, config.guard);
  const connections = trackConnections(server);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const admin = await startAdminServer(config.host, config.adminPort);
  logger.info('listening', { port, adminPort: admin.port, provider: config.providerBaseUrl });

  return {
    port,
    adminPort: admin.port,
    stop: async () => {
      admin.setNotReady();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      connections.closeUnused();
      // Past the grace time, callers are cut off and provider replies still being read are
      // abandoned (billed as broken off), so that the finishes below can land.
      const grace = setTimeout(() => {
        server.closeAllConnections();
        void provider.close();
      }, config.shutdownGraceMs);
      await closed;
      await finishSender.drain();
      await leases.stop();
      clearTimeout(grace);
      await Promise.all([provider.close(), admin.close()]);
      identityWatch.stop();
      await keyUses.stop();
      authClient.close();
      quota.close();
      olderRelease.close();
    },
  };
}
