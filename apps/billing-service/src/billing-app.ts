import {
  HolderEventFeed,
  loadAuditKey,
  logAuditCheckpoints,
  Logger,
  MoneyAudit,
  openDatabase,
  PeriodicTask,
  PgAuditTrail,
  PgHolderEvents,
  runMigrations,
  startGrpcServer,
} from '@gw/service-kit';
import { SPEND_RULE } from '@gw/money';
import { watchSetAsideBills, watchSpendAlerts } from './billing-metrics';
import { BillingConfig } from './config';
import { BillingLedger } from './domain/billing-ledger';
import { CreditLines } from './domain/credit-lines';
import { LedgerArchive } from './domain/ledger-archive';
import { LowBalanceThresholds } from './domain/low-balance-thresholds';
import { MonthlyStatements } from './domain/monthly-statements';
import { startLedgerMonthKeeper } from './domain/ledger-month-keeper';
import { moneyAuditOf } from './domain/money-audit';
import { LocalPriceFeed, PriceFeed } from './domain/price-feed';
import { PriceWatchHub } from './domain/price-watch-hub';
import { SetAsideBills } from './domain/set-aside-bills';
import { SpendAlerts } from './domain/spend-alerts';
import { startSpendRollUp } from './domain/spend-roll-up';
import { SpendWatch } from './domain/spend-watch';
import { billingGrpc } from './grpc/billing-grpc';
import { ServedBeside } from './grpc/served-beside';
import { olderReleaseBilling } from './legacy/older-release';
import { BILLING_MIGRATIONS } from './store/migrations/billing-migrations';
import { PgBalanceEvents } from './store/pg-balance-events';
import { PgAccountMoneyReads } from './store/pg-account-money-reads';
import { PgBillingAudit } from './store/pg-billing-audit';
import { PgBillingStore } from './store/pg-billing-store';
import { PgCreditLineStore } from './store/pg-credit-line-store';
import { PgLedgerMonths } from './store/pg-ledger-months';
import { MoneyViolation } from './store/money-audit-store';
import { PgMoneyAudit } from './store/pg-money-audit';
import { PgMoneyLinks } from './store/pg-money-links';
import { PgPriceFeed } from './store/pg-price-feed';
import { PgPriceHistory } from './store/pg-price-history';
import { PgSetAsideBills } from './store/pg-set-aside-bills';
import { PgSpendAlerts } from './store/pg-spend-alerts';
import { PgSpendBooks } from './store/pg-spend-books';
import { PgStatements } from './store/pg-statements';
import { loadStatementKey } from './statement-key';

/** A running billing-service. */
export interface BillingApp {
  port: number;
  /** Health to NOT_SERVING, end the price watches, stop the background tasks, finish running calls, close the database. */
  stop(): Promise<void>;
}

/**
 * Opens the store, applies migrations, starts the price feed (between replicas through Postgres;
 * within this one alone on the embedded database) and serves billing.v1.Billing plus health,
 * with the older release's methods beside the current ones.
 */
export async function startBillingApp(config: BillingConfig, logger: Logger): Promise<BillingApp> {
  const db = await openDatabase(config.databaseUrl, config.dataDir);
  let feed: PriceFeed | undefined;
  let monthKeeper: PeriodicTask | undefined;
  let moneyAudit: MoneyAudit<MoneyViolation> | undefined;
  let checkpoints: PeriodicTask | undefined;
  let spendRollUp: PeriodicTask | undefined;
  try {
    const applied = await runMigrations(db, 'billing', BILLING_MIGRATIONS);
    if (applied.length) logger.info('migrations applied', { applied });
    const { key, from } = loadAuditKey(config.auditKey);
    if (from === 'file' && config.databaseUrl)
      logger.warn("AUDIT_KEY is unset: the audit chain is keyed with this machine's key file", { file: config.auditKey.file });
    const statementKey = loadStatementKey(config.statementKey);
    if (statementKey.from === 'file' && config.databaseUrl)
      logger.warn("STATEMENT_SIGNING_KEY is unset: statements are signed with this machine's key file", { file: config.statementKey.file });
    const trail = new PgAuditTrail('billing', key, undefined, config.auditUnkeyedEntries);
    const links = new PgMoneyLinks(trail);
    const opened = await links.linkEarlierBooks(db);
    if (opened) logger.info('linked the movements kept before links were', { seq: opened.seq, rows: opened.details.rows });
    const holderEvents = new PgHolderEvents('billing');
    const balanceEvents = new PgBalanceEvents(db, holderEvents);
    const store = new PgBillingStore(db, links, balanceEvents);
    watchSetAsideBills(db);
    const hub = new PriceWatchHub(config.priceAckTimeoutMs);
    const priceFeed = config.databaseUrl
      ? await PgPriceFeed.start(config.databaseUrl, db, store, hub, config.priceAckTimeoutMs, logger)
      : await LocalPriceFeed.start(store, hub);
    feed = priceFeed;
    const { lateWindowMs, aheadMs } = config.filingWindow;
    const statementStore = new PgStatements(db, key, lateWindowMs + aheadMs);
    const months = new PgLedgerMonths(db, links, statementStore);
    monthKeeper = await startLedgerMonthKeeper(months, logger);
    moneyAudit = moneyAuditOf(new PgMoneyAudit(db));
    moneyAudit.watch(config.moneyAuditIntervalMs, logger);
    const eventFeed = new HolderEventFeed(db, holderEvents, config.holderEventsPollMs, logger);
    const beside: ServedBeside[] = [olderReleaseBilling(db, links, config, logger)];
    const spendBooks = new PgSpendBooks(db);
    const spendAlertStore = new PgSpendAlerts(db);
    const spendWatch = new SpendWatch(spendBooks, spendAlertStore, holderEvents, SPEND_RULE, logger);
    watchSpendAlerts(db);
    spendRollUp = startSpendRollUp(spendBooks, logger);
    const billing = billingGrpc(
      {
        ledger: new BillingLedger(store, priceFeed),
        creditLines: new CreditLines(new PgCreditLineStore(db, links, balanceEvents, spendWatch), config.filingWindow, {
          history: new PgPriceHistory(db),
          propagationMs: config.pricePropagationMs,
        }),
        moneyReads: new PgAccountMoneyReads(db),
        statements: new MonthlyStatements(statementStore, statementKey.key, lateWindowMs, await statementStore.begin()),
        priceHub: hub,
        archive: new LedgerArchive(months, lateWindowMs),
        setAside: new SetAsideBills(new PgSetAsideBills(db, links)),
        moneyAudit,
        audit: new PgBillingAudit(db, trail),
        thresholds: new LowBalanceThresholds(balanceEvents),
        holderEvents: eventFeed,
        spendAlerts: new SpendAlerts(spendAlertStore),
      },
      logger,
      beside,
    );
    const server = await startGrpcServer(config, [billing], logger);
    beside.forEach((served) => served.start());
    checkpoints = logAuditCheckpoints('billing-service', trail, db, key, config.auditCheckpointIntervalMs, logger);
    logger.info('listening', { port: server.port, store: config.databaseUrl ? 'postgres' : 'pglite' });
    return {
      port: server.port,
      stop: async () => {
        server.setNotServing();
        // The watch streams would hold the server open: ended, each watcher resyncs elsewhere.
        hub.endAll('billing-service stopping');
        eventFeed.endAll('billing-service stopping');
        await priceFeed.stop();
        await Promise.all(beside.map((served) => served.stop()));
        await monthKeeper?.stop();
        await moneyAudit?.stop();
        await checkpoints?.stop();
        await spendRollUp?.stop();
        await server.stop(config.shutdownGraceMs);
        await db.close();
      },
    };
  } catch (err) {
    await feed?.stop().catch(() => undefined);
    await monthKeeper?.stop();
    await moneyAudit?.stop();
    await checkpoints?.stop();
    await spendRollUp?.stop();
    await db.close().catch(() => undefined);
    throw err;
  }
}
