import { authV1 } from '@gw/contracts';
import { Logger, openDatabase, runMigrations, startGrpcServer } from '@gw/service-kit';
import { AuthConfig } from './config';
import { AccountDirectory } from './domain/account-directory';
import { LastUsedRecorder } from './domain/last-used-recorder';
import { authGrpc } from './grpc/auth-grpc';
import { AUTH_MIGRATIONS } from './store/auth-migrations';
import { PgIdentityStore } from './store/pg-identity-store';

/** A running auth-service. */
export interface AuthApp {
  port: number;
  /** Health to NOT_SERVING, finish running calls, write pending last-used times, close the database. */
  stop(): Promise<void>;
}

/** Opens the store, applies migrations and serves auth.v1.Auth plus health. */
export async function startAuthApp(config: AuthConfig, logger: Logger): Promise<AuthApp> {
  const db = await openDatabase(config.databaseUrl, config.dataDir);
  const applied = await runMigrations(db, 'auth', AUTH_MIGRATIONS);
  if (applied.length) logger.info('migrations applied', { applied });
  const store = new PgIdentityStore(db);
  const lastUsed = new LastUsedRecorder((batch) => store.touchKeys(batch), config.lastUsedFlushMs, (err) =>
    logger.warn('last-used write failed, will retry', { err }),
  );
  const directory = new AccountDirectory(store, lastUsed);
  const server = await startGrpcServer(config.host, config.port, [
    { name: 'auth.v1.Auth', definition: authV1.AuthService, implementation: authGrpc(directory, config.suspensionWhatsapp, logger) },
  ], config.metricsPort);
  logger.info('listening', { port: server.port, store: config.databaseUrl ? 'postgres' : 'pglite' });
  return {
    port: server.port,
    stop: async () => {
      server.health.setNotServing();
      await server.stop(config.shutdownGraceMs);
      await lastUsed.flush();
      await db.close();
    },
  };
}
