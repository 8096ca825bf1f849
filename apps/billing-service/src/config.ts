import { BILLING_SETTINGS } from '@gw/app-settings';
import { FilingWindow } from './domain/bill-time';
import { AuditKeySource, Env, GrpcServerSettings, LogLevel, readGrpcServerSettings, readSettings } from '@gw/service-kit';

/** billing-service settings, each default beside its variable. */
export interface BillingConfig extends GrpcServerSettings {
  /** Postgres URL; unset selects the embedded PGlite under `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Holds older than this are released by the sweeper (the request is presumed lost). */
  holdTtlSeconds: number;
  /** How often the sweeper looks for stale holds. */
  holdSweepIntervalMs: number;
  /**
   * How long SetPrice waits for a price watcher (a quota-service replica) to acknowledge a change
   * before its stream is ended, so that it refuses paid work until it has the whole table again.
   */
  priceAckTimeoutMs: number;
  /** While the notifier follows the holder events, how often they are looked at besides each commit's notification. */
  holderEventsPollMs: number;
  /** How often the books are audited for the money_audit_violations gauge. */
  moneyAuditIntervalMs: number;
  /**
   * How far behind (lateWindowMs) or ahead (aheadMs) of this clock a bill's admitted time may be
   * for the bill to be filed; farther, it is set aside for the operator. A month is archived only
   * lateWindowMs after it ends.
   */
  filingWindow: FilingWindow;
  /**
   * How far from its admitted time a paid bill's prices may have been in force and still be
   * filed: the time a price change takes to reach every quota-service replica, and more than
   * the Redis and PostgreSQL clocks differ by.
   */
  pricePropagationMs: number;
  /** The audit chain's key: AUDIT_KEY, or the file kept beside the embedded data (loadAuditKey). */
  auditKey: AuditKeySource;
  /** How often the chain's last link is logged as a checkpoint. */
  auditCheckpointIntervalMs: number;
  /** How many first entries of the chain were written before its links were keyed (AUDIT_UNKEYED_ENTRIES). */
  auditUnkeyedEntries: number;
  shutdownGraceMs: number;
  logLevel: LogLevel;
}

/** Reads the configuration through BILLING_SETTINGS and readGrpcServerSettings; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<BillingConfig> {
  const s = readSettings(env, BILLING_SETTINGS);
  return Object.freeze({
    ...readGrpcServerSettings(env, s, 'billing-service', { port: s.BILLING_PORT, metricsPort: s.BILLING_METRICS_PORT }),
    databaseUrl: s.DATABASE_URL,
    dataDir: `${s.DATA_DIR}/billing`,
    holdTtlSeconds: s.HOLD_TTL_SECONDS,
    holdSweepIntervalMs: s.HOLD_SWEEP_INTERVAL_MS,
    priceAckTimeoutMs: s.PRICE_ACK_TIMEOUT_MS,
    moneyAuditIntervalMs: s.MONEY_AUDIT_INTERVAL_MS,
    holderEventsPollMs: s.HOLDER_EVENTS_POLL_MS,
    filingWindow: Object.freeze({ lateWindowMs: s.BILL_LATE_WINDOW_MS, aheadMs: s.BILL_AHEAD_MS }),
    pricePropagationMs: s.PRICE_PROPAGATION_MS,
    auditKey: { value: s.AUDIT_KEY, file: `${s.DATA_DIR}/audit.key` },
    auditCheckpointIntervalMs: s.AUDIT_CHECKPOINT_INTERVAL_MS,
    auditUnkeyedEntries: s.AUDIT_UNKEYED_ENTRIES,
    shutdownGraceMs: s.SHUTDOWN_GRACE_MS,
    logLevel: s.LOG_LEVEL as LogLevel,
  });
}
