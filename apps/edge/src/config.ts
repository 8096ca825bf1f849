import { Env, GrpcSecurity, LogLevel, readBool, readGrpcSecurity, readInt, readString } from '@gw/service-kit';
import { ServerGuard } from './http/public-server';
import { BreakerSettings } from './upstream/circuit-breaker';

/** edge settings, each default beside its variable. */
export interface EdgeConfig {
  host: string;
  port: number;
  adminPort: number;
  authAddr: string;
  quotaAddr: string;
  billingAddr: string;
  /** The edge's certificate for its calls to the services (or plain text, on loopback only). */
  grpcSecurity: GrpcSecurity;
  providerBaseUrl: string;
  providerApiKey: string;
  providerMaxConnections: number;
  grpcTimeoutMs: number;
  /** How often the leases of running requests are renewed at quota-service. */
  leaseRenewMs: number;
  /** Provider silence after which the caller is answered without it (504, or a stream error). */
  providerSilenceMs: number;
  /** Provider silence after which the edge stops reading a reply for good. */
  providerReadTimeoutMs: number;
  breaker: BreakerSettings;
  bodyLimitBytes: number;
  /** How the public server bounds what callers may hold of it: connections, bodies being read, slow requests, idle connections. */
  guard: ServerGuard;
  /** Whether the front guard refuses the default User-Agents of `blockedUserAgents` (403 error code: 1010). */
  blockLibraryClients: boolean;
  blockedUserAgents: string[];
  shutdownGraceMs: number;
  logLevel: LogLevel;
}

/** The default User-Agents of standard-library HTTP clients (Python urllib, Go net/http, Java, Ruby Net::HTTP, Dart). */
const LIBRARY_USER_AGENTS = 'Python-urllib,Go-http-client,Java-http-client,Java,Ruby,Dart';

/** Stops the start on guard settings that would refuse what docs/api.md allows, or that Node refuses. */
function checkGuard(guard: ServerGuard, bodyLimitBytes: number): ServerGuard {
  if (guard.bodyBudgetBytes < bodyLimitBytes)
    throw new Error(`BODY_BUDGET_BYTES (${guard.bodyBudgetBytes}) must be at least BODY_LIMIT_BYTES (${bodyLimitBytes})`);
  if (guard.headersTimeoutMs > guard.bodyTimeoutMs)
    throw new Error(`HEADERS_TIMEOUT_MS (${guard.headersTimeoutMs}) must not be above BODY_TIMEOUT_MS (${guard.bodyTimeoutMs})`);
  return guard;
}

/** Reads the configuration; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<EdgeConfig> {
  const bodyLimitBytes = readInt(env, 'BODY_LIMIT_BYTES', 2 * 1024 * 1024);
  return Object.freeze({
    host: readString(env, 'BIND_HOST', '0.0.0.0'),
    port: readInt(env, 'EDGE_PORT', 8080),
    adminPort: readInt(env, 'EDGE_ADMIN_PORT', 9080),
    authAddr: readString(env, 'AUTH_ADDR', '127.0.0.1:50051'),
    quotaAddr: readString(env, 'QUOTA_ADDR', '127.0.0.1:50052'),
    billingAddr: readString(env, 'BILLING_ADDR', '127.0.0.1:50053'),
    grpcSecurity: readGrpcSecurity(env, 'edge'),
    providerBaseUrl: readString(env, 'PROVIDER_BASE_URL', 'http://127.0.0.1:8090/v1').replace(/\/+$/, ''),
    providerApiKey: readString(env, 'PROVIDER_API_KEY', 'sim-key'),
    providerMaxConnections: readInt(env, 'PROVIDER_MAX_CONNECTIONS', 4096),
    grpcTimeoutMs: readInt(env, 'GRPC_TIMEOUT_MS', 1000),
    leaseRenewMs: readInt(env, 'LEASE_RENEW_MS', 5000),
    providerSilenceMs: readInt(env, 'PROVIDER_SILENCE_MS', 120_000),
    providerReadTimeoutMs: readInt(env, 'PROVIDER_READ_TIMEOUT_MS', 600_000),
    breaker: {
      failureThreshold: readInt(env, 'BREAKER_FAILURE_THRESHOLD', 5),
      windowMs: readInt(env, 'BREAKER_WINDOW_MS', 60_000),
      cooldownMs: readInt(env, 'BREAKER_COOLDOWN_MS', 30_000),
    },
    bodyLimitBytes,
    guard: checkGuard(
      {
        maxConnections: readInt(env, 'EDGE_MAX_CONNECTIONS', 4096),
        bodyBudgetBytes: readInt(env, 'BODY_BUDGET_BYTES', 64 * 1024 * 1024),
        headersTimeoutMs: readInt(env, 'HEADERS_TIMEOUT_MS', 10_000),
        bodyTimeoutMs: readInt(env, 'BODY_TIMEOUT_MS', 60_000),
        keepAliveTimeoutMs: readInt(env, 'KEEP_ALIVE_TIMEOUT_MS', 65_000),
      },
      bodyLimitBytes,
    ),
    blockLibraryClients: readBool(env, 'BLOCK_LIBRARY_CLIENTS', true),
    blockedUserAgents: readString(env, 'BLOCKED_USER_AGENTS', LIBRARY_USER_AGENTS)
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 30_000),
    logLevel: readString(env, 'LOG_LEVEL', 'info') as LogLevel,
  });
}
