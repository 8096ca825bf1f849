import { defineSettings, setting } from '@gw/service-kit';
import {
  AUDIT_CHECKPOINT_INTERVAL_MS,
  AUDIT_UNKEYED_ENTRIES,
  AUDIT_KEY,
  BIND_HOST,
  DATA_DIR,
  DATABASE_URL,
  GRPC_MAX_CONNECTION_AGE_MS,
  HOLDER_EVENTS_POLL_MS,
  LOG_LEVEL,
  SHUTDOWN_GRACE_MS,
} from './common';

/** What billing-service reads (apps/billing-service/src/config.ts), besides GRPC_SECURITY_SETTINGS. */
export const BILLING_SETTINGS = defineSettings({
  BIND_HOST,
  BILLING_PORT: setting.int(50053, 'the gRPC service (with grpc.health.v1)'),
  BILLING_METRICS_PORT: setting.int(9103, 'the admin port: GET /metrics, /healthz and /readyz (503 from SIGTERM on)'),
  GRPC_MAX_CONNECTION_AGE_MS,
  DATABASE_URL,
  DATA_DIR,
  HOLD_TTL_SECONDS: setting.int(900, 'holds neither placed nor renewed for this long are released (keep it well above LEASE_TTL_MS)'),
  HOLD_SWEEP_INTERVAL_MS: setting.int(60_000, 'how often the sweeper looks for stale holds'),
  PRICE_ACK_TIMEOUT_MS: setting.int(5000, 'how long SetPrice waits for each price watcher to apply a price before cutting its watch'),
  MONEY_AUDIT_INTERVAL_MS: setting.int(600_000, 'how often the books are audited for the money_audit_violations gauge'),
  HOLDER_EVENTS_POLL_MS,
  BILL_LATE_WINDOW_MS: setting.int(
    90_000_000,
    'a bill admitted longer ago than this is set aside, not filed; a month is archived only this long after it ends',
    { min: 60_000 },
  ),
  BILL_AHEAD_MS: setting.int(300_000, 'a bill admitted further ahead of the clock than this is set aside, not filed'),
  PRICE_PROPAGATION_MS: setting.int(
    30_000,
    'a paid bill whose prices were not in force at any moment within this of its admitted time is set aside, not filed',
  ),
  AUDIT_KEY,
  AUDIT_CHECKPOINT_INTERVAL_MS,
  AUDIT_UNKEYED_ENTRIES,
  SHUTDOWN_GRACE_MS,
  LOG_LEVEL,
});
