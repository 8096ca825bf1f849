import { Database, Logger } from '@gw/service-kit';
import { BillingConfig } from '../config';
import { ServedBeside } from '../grpc/served-beside';
import { PgMoneyLinks } from '../store/pg-money-links';
import { HoldLedger } from './domain/hold-ledger';
import { HoldSweeper } from './domain/hold-sweeper';
import { authorizeCallsStream, olderReleaseGrpc } from './grpc/older-release-grpc';
import { watchHolds } from './hold-metrics';
import { PgHoldStore } from './store/pg-hold-store';

/**
 * The older release's billing, served beside the current one during a rolling upgrade (the
 * release before one-call admission: its edges hold at billing-service with Authorize, and
 * quota-service settles those requests with Settle). Its holds live in `billing.holds`, beside
 * the credit lines, under the same constraint; the sweeper releases a hold whose request never
 * ran. Everything it needs is in this folder and its tests in test/legacy/: at its sunset (the
 * first release after the one that brings Admit, docs/architecture.md#older-releases) both go,
 * with the import and the line of billing-app.ts that start it, and then its settings
 * (HOLD_TTL_SECONDS, HOLD_SWEEP_INTERVAL_MS) and the deprecated methods of billing.proto.
 */
export function olderReleaseBilling(db: Database, links: PgMoneyLinks, config: BillingConfig, logger: Logger): ServedBeside {
  const store = new PgHoldStore(db, links);
  watchHolds(db);
  const sweeper = new HoldSweeper(store, config.holdTtlSeconds, config.holdSweepIntervalMs, logger);
  return {
    handlers: olderReleaseGrpc(new HoldLedger(store), logger),
    streams: (methods) => ({ authorizeCalls: authorizeCallsStream(methods) }),
    start: () => sweeper.start(),
    stop: () => sweeper.stop(),
  };
}
