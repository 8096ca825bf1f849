import { defineSettings, setting } from '@gw/service-kit';
import {
  AUTH_ADDR,
  BILLING_ADDR,
  BIND_HOST,
  CONSOLE_PUBLIC_URL,
  DATA_DIR,
  DATABASE_URL,
  GRPC_MAX_CONNECTION_AGE_MS,
  LOG_LEVEL,
  NOTIFIER_ADDR,
  QUOTA_ADDR,
  SHUTDOWN_GRACE_MS,
} from './common';

/** What the console reads (apps/console/src/config.ts), besides GRPC_SECURITY_SETTINGS. */
export const CONSOLE_SETTINGS = defineSettings({
  CONSOLE_PORT: setting.int(8081, 'the web pages'),
  BIND_HOST,
  CONSOLE_GRPC_PORT: setting.int(50054, 'console.v1, for the operator (ctl console invite) and the notifier'),
  CONSOLE_METRICS_PORT: setting.int(9104, 'the admin port: GET /metrics, /healthz and /readyz'),
  GRPC_MAX_CONNECTION_AGE_MS,
  AUTH_ADDR,
  BILLING_ADDR,
  QUOTA_ADDR,
  NOTIFIER_ADDR,
  GRPC_TIMEOUT_MS: setting.int(1000, 'the deadline of each gRPC call'),
  CONSOLE_PUBLIC_URL,
  CONSOLE_SECURE_COOKIES: setting.bool(false, 'session cookies only over https (set behind an https front)'),
  CONSOLE_TRUST_PROXY_HOPS: setting.int(0, "proxies in front whose X-Forwarded-For gives the client's address (0 takes the peer's)"),
  CONSOLE_SESSION_TTL_MS: setting.int(8 * 3600_000, "a session's life"),
  SIGN_IN_MAX_FAILURES: setting.int(5, 'sign-in attempts per email from one client in one window before 429'),
  SIGN_IN_WINDOW_MS: setting.int(15 * 60_000, 'the window of SIGN_IN_MAX_FAILURES'),
  SIGN_IN_SLOW_INTERVAL_MS: setting.int(30_000, 'past twice the failures per email, one attempt per this interval'),
  DATABASE_URL,
  DATA_DIR,
  SHUTDOWN_GRACE_MS,
  LOG_LEVEL,
});
