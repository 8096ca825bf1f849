/** The whole gateway as real processes on loopback, for end-to-end tests. */
export { startStack, type RunningStack, type StackOptions } from './start-stack';
/** The one wait for an observable state, re-exported for the e2e files that import from here. */
export { eventually } from '@gw/testing';
export { buildRelease, type BuiltRelease } from './build-release';
export {
  startGateway,
  PATIENT_DEADLINES,
  PRODUCTION_DEADLINES,
  awayFromMinuteEnd,
  WAITS_FOR_MINUTE_MS,
  errorOf,
  readEvents,
  type GatewayUnderTest,
} from './gateway-under-test';
export { scrapeMetrics, type MetricsScrape } from './metrics-scrape';
export { openRaw, statusOf, replyOf, type RawConnection } from './raw-connection';
export { createFundedAccounts, type FundedAccount } from './funded-accounts';
