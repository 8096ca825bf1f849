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

/** What auth-service reads (apps/auth-service/src/config.ts), besides GRPC_SECURITY_SETTINGS. */
export const AUTH_SETTINGS = defineSettings({
  BIND_HOST,
  AUTH_PORT: setting.int(50051, 'the gRPC service (with grpc.health.v1)'),
  AUTH_METRICS_PORT: setting.int(9101, 'the admin port: GET /metrics, /healthz and /readyz (503 from SIGTERM on)'),
  GRPC_MAX_CONNECTION_AGE_MS,
  DATABASE_URL,
  DATA_DIR,
  SUSPENSION_WHATSAPP: setting.string('+218910000000', 'the contact in the suspension object'),
  LAST_USED_FLUSH_MS: setting.int(1000, 'how often the batched "last used" times of keys are written'),
  SUSPENSION_END_CHECK_MS: setting.int(30_000, 'how often suspensions whose end time passed are ended and their holders told', {
    min: 100,
  }),
  HOLDER_EVENTS_POLL_MS,
  AUDIT_KEY,
  AUDIT_CHECKPOINT_INTERVAL_MS,
  AUDIT_UNKEYED_ENTRIES,
  SHUTDOWN_GRACE_MS,
  LOG_LEVEL,
});
