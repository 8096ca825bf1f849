import { defineSettings, setting } from '@gw/service-kit';
import { AUTH_ADDR, BILLING_ADDR, BIND_HOST, LOG_LEVEL, QUOTA_ADDR } from './common';

/** The default User-Agents of standard-library HTTP clients (Python urllib, Go net/http, Java, Ruby Net::HTTP, Dart). */
const LIBRARY_USER_AGENTS = 'Python-urllib,Go-http-client,Java-http-client,Java,Ruby,Dart';

/** What the edge reads (apps/edge/src/config.ts), besides GRPC_SECURITY_SETTINGS. */
export const EDGE_SETTINGS = defineSettings({
  BODY_LIMIT_BYTES: setting.int(2 * 1024 * 1024, 'larger request bodies get 413'),
  BIND_HOST,
  EDGE_PORT: setting.int(8080, 'the public API'),
  EDGE_ADMIN_PORT: setting.int(9080, 'the admin port: GET /healthz, /readyz and /metrics'),
  AUTH_ADDR,
  QUOTA_ADDR,
  BILLING_ADDR,
  PROVIDER_BASE_URL: setting.string('http://127.0.0.1:8090/v1', 'the provider API: chat requests go to its /chat/completions'),
  PROVIDER_API_KEY: setting.string('sim-key', "the gateway's own provider key"),
  PROVIDER_MAX_CONNECTIONS: setting.int(4096, 'connections to the provider at most (each reply in progress holds one)'),
  GRPC_TIMEOUT_MS: setting.int(1000, 'the deadline of each gRPC call'),
  LEASE_RENEW_MS: setting.int(5000, 'how often the leases of running requests are renewed at quota-service'),
  EDGE_FINAL_BILLS_MAX: setting.int(
    100_000,
    'final bills of finished requests kept and renewed until applied, at most (about 1 KB each); one more drops the oldest',
    { min: 1 },
  ),
  PROVIDER_SILENCE_MS: setting.int(120_000, 'provider silence after which the caller is answered without it (504, or a stream error)'),
  PROVIDER_READ_TIMEOUT_MS: setting.int(600_000, 'provider silence after which the edge stops reading a reply for good'),
  BREAKER_FAILURE_THRESHOLD: setting.int(5, 'provider failures in a row (within the window) that open the circuit breaker'),
  BREAKER_WINDOW_MS: setting.int(60_000, "the circuit breaker's window"),
  BREAKER_COOLDOWN_MS: setting.int(30_000, 'the time an open circuit breaker waits before one probe request'),
  EDGE_MAX_CONNECTIONS: setting.int(4096, 'open client connections at most; one more is closed as soon as it is accepted'),
  BODY_BUDGET_BYTES: setting.int(
    64 * 1024 * 1024,
    'bytes of request bodies being read at once, across all requests (at least BODY_LIMIT_BYTES)',
  ),
  HEADERS_TIMEOUT_MS: setting.int(10_000, "a request's headers must arrive within this, else 408"),
  BODY_TIMEOUT_MS: setting.int(
    60_000,
    'the whole request must arrive within this of its first byte, else 408 (at least HEADERS_TIMEOUT_MS)',
  ),
  KEEP_ALIVE_TIMEOUT_MS: setting.int(65_000, 'an idle keep-alive connection is closed after this'),
  BLOCK_LIBRARY_CLIENTS: setting.bool(true, 'refuse the User-Agents of BLOCKED_USER_AGENTS (403 error code: 1010)'),
  BLOCKED_USER_AGENTS: setting.string(LIBRARY_USER_AGENTS, 'the User-Agents refused, comma-separated'),
  SHUTDOWN_GRACE_MS: setting.int(30_000, 'the drain time on SIGTERM'),
  LOG_LEVEL,
});
