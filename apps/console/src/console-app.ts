import { AddressInfo } from 'node:net';
import { Logger, openDatabase, PeriodicTask, runMigrations, startGrpcServer } from '@gw/service-kit';
import { AuthClient } from './clients/auth-client';
import { MoneyClients } from './clients/money-clients';
import { NotifierClient } from './clients/notifier-client';
import { ConsoleConfig } from './config';
import { HolderAccess } from './domain/holder-access';
import { SignInGuard, signInLimits } from './domain/sign-in-guard';
import { ThresholdHandover } from './domain/threshold-handover';
import { consoleGrpc } from './grpc/console-grpc';
import { startConsoleServer } from './http/console-server';
import { CONSOLE_MIGRATIONS } from './store/console-migrations';
import { PgConsoleStore } from './store/pg-console-store';
import { PgKeptThresholdStore } from './store/pg-kept-threshold-store';
import { PgMailSwitchStore } from './store/pg-mail-switch-store';
import { PgSignInAttemptStore } from './store/pg-sign-in-attempt-store';

const CLEANUP_MS = 10 * 60_000;

/** A running console. */
export interface ConsoleApp {
  /** The web pages' port. */
  httpPort: number;
  /** console.v1's port. */
  port: number;
  stop(): Promise<void>;
}

/**
 * Opens the store, applies migrations, hands the low-balance thresholds it kept over to
 * billing-service, serves the web pages and console.v1 (for ctl and the notifier).
 */
export async function startConsoleApp(config: ConsoleConfig, logger: Logger): Promise<ConsoleApp> {
  const db = await openDatabase(config.databaseUrl, config.dataDir);
  try {
    const applied = await runMigrations(db, 'console', CONSOLE_MIGRATIONS);
    if (applied.length) logger.info('migrations applied', { applied });
    const store = new PgConsoleStore(db);
    const guard = new SignInGuard(
      new PgSignInAttemptStore(db),
      signInLimits(config.signInMaxFailures, config.signInWindowMs, config.signInSlowIntervalMs),
    );
    const access = new HolderAccess(store, guard, { sessionTtlMs: config.sessionTtlMs, publicUrl: config.publicUrl });
    const auth = new AuthClient(config.authAddr, config.security, config.grpcTimeoutMs);
    const money = new MoneyClients(config, config.security, config.grpcTimeoutMs);
    const notifier = new NotifierClient(config.notifierAddr, config.security, config.grpcTimeoutMs);
    const mailSwitches = new PgMailSwitchStore(db);
    const grpc = await startGrpcServer(config, [consoleGrpc(access, auth, mailSwitches, logger)], logger);
    const handover = new ThresholdHandover(new PgKeptThresholdStore(db), money, logger);
    handover.start();
    const web = await startConsoleServer(
      {
        access,
        auth,
        money,
        notifier,
        mailSwitches,
        sessionTtlMs: config.sessionTtlMs,
        secureCookies: config.secureCookies,
        trustProxyHops: config.trustProxyHops,
        logger,
      },
      config.host,
      config.httpPort,
    );
    const cleanup = new PeriodicTask(
      async () => {
        await Promise.all([store.deleteExpired(), guard.deleteEnded()]);
      },
      { intervalMs: CLEANUP_MS, failed: (err) => logger.warn('expired sessions or sign-in counts not removed', { err }) },
    );
    cleanup.start();
    const httpPort = (web.address() as AddressInfo).port;
    logger.info('listening', { httpPort, port: grpc.port, store: config.databaseUrl ? 'postgres' : 'pglite' });
    return {
      httpPort,
      port: grpc.port,
      stop: async () => {
        grpc.setNotServing();
        await cleanup.stop();
        await handover.stop();
        web.closeIdleConnections();
        await new Promise<void>((resolve) => web.close(() => resolve()));
        await grpc.stop(config.shutdownGraceMs);
        auth.close();
        money.close();
        notifier.close();
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}
