import { AUTH_SETTINGS } from '@gw/app-settings';
import { AuditKeySource, Env, GrpcServerSettings, LogLevel, readGrpcServerSettings, readSettings } from '@gw/service-kit';

/** auth-service settings, each default beside its variable. */
export interface AuthConfig extends GrpcServerSettings {
  databaseUrl: string | undefined;
  dataDir: string;
  suspensionWhatsapp: string;
  lastUsedFlushMs: number;
  /** How often suspensions whose end time passed are ended and their holders told. */
  suspensionEndCheckMs: number;
  /** While the notifier follows the holder events, how often they are looked at besides each commit's notification. */
  holderEventsPollMs: number;
  /** The audit chain's key: AUDIT_KEY, or the file kept beside the embedded data (loadAuditKey). */
  auditKey: AuditKeySource;
  /** How often the chain's last link is logged as a checkpoint. */
  auditCheckpointIntervalMs: number;
  /** How many first entries of the chain were written before its links were keyed (AUDIT_UNKEYED_ENTRIES). */
  auditUnkeyedEntries: number;
  shutdownGraceMs: number;
  logLevel: LogLevel;
}

/** Reads the configuration through AUTH_SETTINGS and readGrpcServerSettings; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<AuthConfig> {
  const s = readSettings(env, AUTH_SETTINGS);
  return Object.freeze({
    ...readGrpcServerSettings(env, s, 'auth-service', { port: s.AUTH_PORT, metricsPort: s.AUTH_METRICS_PORT }),
    databaseUrl: s.DATABASE_URL,
    dataDir: `${s.DATA_DIR}/auth`,
    suspensionWhatsapp: s.SUSPENSION_WHATSAPP,
    lastUsedFlushMs: s.LAST_USED_FLUSH_MS,
    suspensionEndCheckMs: s.SUSPENSION_END_CHECK_MS,
    holderEventsPollMs: s.HOLDER_EVENTS_POLL_MS,
    auditKey: { value: s.AUDIT_KEY, file: `${s.DATA_DIR}/audit.key` },
    auditCheckpointIntervalMs: s.AUDIT_CHECKPOINT_INTERVAL_MS,
    auditUnkeyedEntries: s.AUDIT_UNKEYED_ENTRIES,
    shutdownGraceMs: s.SHUTDOWN_GRACE_MS,
    logLevel: s.LOG_LEVEL as LogLevel,
  });
}
