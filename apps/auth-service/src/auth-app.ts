import {
  HolderEventFeed,
  loadAuditKey,
  logAuditCheckpoints,
  Logger,
  openDatabase,
  PgAuditTrail,
  PgHolderEvents,
  runMigrations,
  startGrpcServer,
} from '@gw/service-kit';
import { AuthConfig } from './config';
import { AccountDirectory } from './domain/account-directory';
import { IdentityChangeHub } from './domain/identity-change-hub';
import { IdentityFeed, LocalIdentityFeed } from './domain/identity-feed';
import { LastUsedRecorder } from './domain/last-used-recorder';
import { startSuspensionEndCheck } from './domain/suspension-end-check';
import { authGrpc } from './grpc/auth-grpc';
import { AUTH_MIGRATIONS } from './store/auth-migrations';
import { PgIdentityFeed } from './store/pg-identity-feed';
import { PgIdentityStore } from './store/pg-identity-store';

/** An edge that has not acknowledged a change within this has its change stream ended. */
const ACK_TIMEOUT_MS = 2000;

/** A running auth-service. */
export interface AuthApp {
  port: number;
  /** Health to NOT_SERVING, end the background passes, finish running calls, write pending last-used times, close the database. */
  stop(): Promise<void>;
}

/** Opens the store, applies migrations and serves auth.v1.Auth (its holder events streamed to the notifier) plus health. */
export async function startAuthApp(config: AuthConfig, logger: Logger): Promise<AuthApp> {
  const db = await openDatabase(config.databaseUrl, config.dataDir);
  const applied = await runMigrations(db, 'auth', AUTH_MIGRATIONS);
  if (applied.length) logger.info('migrations applied', { applied });
  const { key, from } = loadAuditKey(config.auditKey);
  if (from === 'file' && config.databaseUrl)
    logger.warn("AUDIT_KEY is unset: the audit chain is keyed with this machine's key file", { file: config.auditKey.file });
  const trail = new PgAuditTrail('auth', key, undefined, config.auditUnkeyedEntries);
  const holderEvents = new PgHolderEvents('auth');
  const store = new PgIdentityStore(db, trail, holderEvents);
  const eventFeed = new HolderEventFeed(db, holderEvents, config.holderEventsPollMs, logger);
  const lastUsed = new LastUsedRecorder(
    (batch) => store.touchKeys(batch),
    config.lastUsedFlushMs,
    (err) => logger.warn('last-used write failed, will retry', { err }),
  );
  const hub = new IdentityChangeHub(ACK_TIMEOUT_MS);
  const feed: IdentityFeed = config.databaseUrl
    ? await PgIdentityFeed.start(config.databaseUrl, db, hub, logger)
    : new LocalIdentityFeed(hub, logger);
  const directory = new AccountDirectory(store, lastUsed, feed);
  const server = await startGrpcServer(config, [authGrpc(directory, hub, eventFeed, config.suspensionWhatsapp, logger)], logger);
  logger.info('listening', { port: server.port, store: config.databaseUrl ? 'postgres' : 'pglite' });
  const checkpoints = logAuditCheckpoints('auth-service', trail, db, key, config.auditCheckpointIntervalMs, logger);
  const suspensionEnds = startSuspensionEndCheck(store, config.suspensionEndCheckMs, logger);
  return {
    port: server.port,
    stop: async () => {
      server.setNotServing();
      // The edges' change streams would hold the server open: ended, each edge drops its cache.
      hub.endAll('auth-service stopping');
      eventFeed.endAll('auth-service stopping');
      await feed.stop();
      await checkpoints.stop();
      await suspensionEnds.stop();
      await server.stop(config.shutdownGraceMs);
      await lastUsed.stop();
      await db.close();
    },
  };
}
