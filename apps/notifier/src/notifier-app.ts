import { authV1, billingV1 } from '@gw/contracts';
import { clientChain, Logger, openDatabase, rpcClient, runMigrations, startGrpcServer } from '@gw/service-kit';
import { ConsoleClient } from './clients/console-client';
import { EventSource, EventStreamFollower } from './clients/event-stream-follower';
import { AuthKeyNames } from './clients/key-names';
import { NotifierConfig } from './config';
import { EventTaker } from './domain/event-taker';
import { MailSender } from './domain/mail-sender';
import { notifierGrpc } from './grpc/notifier-grpc';
import { smtpTransport } from './mail/smtp-transport';
import { watchMailBacklog } from './notifier-metrics';
import { NOTIFIER_MIGRATIONS } from './store/notifier-migrations';
import { PgMailStore } from './store/pg-mail-store';

/** A running notifier. */
export interface NotifierApp {
  /** notifier.v1's port. */
  port: number;
  /** Health to NOT_SERVING, end the event streams and the sender (a send under way ends first), close the database. */
  stop(): Promise<void>;
}

/**
 * Opens the store, applies migrations, follows the holder events of billing-service and
 * auth-service from the kept cursors, and sends each mail through SMTP_URL, or keeps it in the
 * outbox when no mail server is set; serves notifier.v1 (the console's Mail page) plus health.
 */
export async function startNotifierApp(config: NotifierConfig, logger: Logger): Promise<NotifierApp> {
  const db = await openDatabase(config.databaseUrl, config.dataDir);
  try {
    const applied = await runMigrations(db, 'notifier', NOTIFIER_MIGRATIONS);
    if (applied.length) logger.info('migrations applied', { applied });
    const store = new PgMailStore(db);
    watchMailBacklog(store);
    const transport = config.smtp && smtpTransport(config.smtp, config.mailFrom);
    const sender =
      transport &&
      new MailSender(
        store,
        transport,
        { retry: config.mailRetry, maxAttempts: config.mailMaxAttempts, claimMs: config.mailClaimMs },
        logger,
      );
    const settings = { timeoutMs: config.grpcTimeoutMs, chain: clientChain() };
    const billing = rpcClient(billingV1.BillingClient, config.billingAddr, config.security, 'billing-service', settings);
    const auth = rpcClient(authV1.AuthClient, config.authAddr, config.security, 'auth-service', settings);
    const recipients = new ConsoleClient(config.consoleAddr, config.security, config.grpcTimeoutMs);
    const writing = { from: config.mailFrom, consoleUrl: config.consoleUrl, keepOnly: !transport };
    const taker = new EventTaker(store, recipients, new AuthKeyNames(auth), writing, () => sender?.wake());
    const sources: EventSource[] = [
      { name: 'billing-service', open: (after) => billing.streams.watchHolderEvents({ after }) },
      { name: 'auth-service', open: (after) => auth.streams.watchHolderEvents({ after }) },
    ];
    const followers = sources.map((source) => new EventStreamFollower(source, store, taker, logger));
    const server = await startGrpcServer(config, [notifierGrpc(store, logger)], logger);
    sender?.wake();
    followers.forEach((f) => f.start());
    logger.info('listening', {
      port: server.port,
      store: config.databaseUrl ? 'postgres' : 'pglite',
      mail: config.smtp ? `smtp ${config.smtp.host}:${config.smtp.port}` : 'kept in the local outbox (SMTP_URL unset)',
    });
    return {
      port: server.port,
      stop: async () => {
        server.setNotServing();
        await Promise.all(followers.map((f) => f.stop()));
        await sender?.stop();
        transport?.close();
        await server.stop(config.shutdownGraceMs);
        billing.close();
        auth.close();
        recipients.close();
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}
