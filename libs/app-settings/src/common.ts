import { GRPC_SECURITY_SETTINGS, setting } from '@gw/service-kit';

// Entries that several apps' tables share, each defined once.

export const BIND_HOST = setting.string('0.0.0.0', 'the listening address (npm start sets 127.0.0.1)');
export const LOG_LEVEL = setting.string('info', 'the least level of the JSON log lines (never a key; debug adds a line per call served)');
/** The same entry as gRPC security's, which reads it for the default TLS_DIR. */
export const DATA_DIR = GRPC_SECURITY_SETTINGS.DATA_DIR;
export const DATABASE_URL = setting.optional('the Postgres URL; unset: the embedded PGlite under $DATA_DIR');
export const GRPC_MAX_CONNECTION_AGE_MS = setting.int(
  60_000,
  'a client connection older than this is asked to go away, so that clients find new replicas (at most 80818)',
);
export const AUTH_ADDR = setting.string(
  '127.0.0.1:50051',
  "auth-service's address: host:port, or dns:///name:port for every address of the name",
);
export const QUOTA_ADDR = setting.string(
  '127.0.0.1:50052',
  "quota-service's address: host:port, or dns:///name:port for every address of the name",
);
export const BILLING_ADDR = setting.string(
  '127.0.0.1:50053',
  "billing-service's address: host:port, or dns:///name:port for every address of the name",
);
export const CONSOLE_ADDR = setting.string(
  '127.0.0.1:50054',
  "the console's console.v1 address: host:port, or dns:///name:port for every address of the name",
);
export const NOTIFIER_ADDR = setting.string(
  '127.0.0.1:50055',
  "the notifier's notifier.v1 address: host:port, or dns:///name:port for every address of the name",
);
export const CONSOLE_PUBLIC_URL = setting.optional(
  'the address holders reach the console at (invitation links, links in mail); unset: http://127.0.0.1:$CONSOLE_PORT',
);
export const SHUTDOWN_GRACE_MS = setting.int(10_000, 'the drain time on SIGTERM');
export const AUDIT_KEY = setting.optional(
  "the audit chain's HMAC key, at least 32 characters: a deployment secret, the same for every replica, never in Postgres; unset: $DATA_DIR/audit.key, made on the first start",
);
export const AUDIT_UNKEYED_ENTRIES = setting.int(
  0,
  "how many first entries of the service's audit chain were written before its links were keyed (an upgraded deployment's, as ctl audit-log verify reports them once; 0 when keyed from the start): verify refuses any other entry without a mac",
  { min: 0 },
);
export const AUDIT_CHECKPOINT_INTERVAL_MS = setting.int(
  600_000,
  "how often the audit chain's last link is logged at info as a checkpoint to keep outside the database",
  { min: 1000 },
);
export const HOLDER_EVENTS_POLL_MS = setting.int(
  5000,
  "while the notifier follows the service's holder events, how often they are looked at besides the notification of each commit",
  { min: 100 },
);
