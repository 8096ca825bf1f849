import { EDGE_SETTINGS } from '@gw/app-settings';
import { Env, GrpcSecurity, LogLevel, readGrpcSecurity, readSettings } from '@gw/service-kit';
import { ServerGuard } from './http/server/public-server';
import { BreakerSettings } from './upstream/circuit-breaker';

/** edge settings, each default beside its variable. */
export interface EdgeConfig {
  host: string;
  port: number;
  adminPort: number;
  authAddr: string;
  quotaAddr: string;
  /** billing-service, called only on the older release's path (legacy/: Authorize). */
  billingAddr: string;
  /** The edge's certificate for its calls to the services (or plain text, on loopback only). */
  grpcSecurity: GrpcSecurity;
  providerBaseUrl: string;
  providerApiKey: string;
  providerMaxConnections: number;
  grpcTimeoutMs: number;
  /** How often the leases of running requests are renewed at quota-service. */
  leaseRenewMs: number;
  /** The final bills of finished requests kept until applied, at most (LeaseKeeper). */
  finalBillsMax: number;
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

/** Stops the start on guard settings that would refuse what docs/api.md allows, or that Node refuses. */
function checkGuard(guard: ServerGuard, bodyLimitBytes: number): ServerGuard {
  if (guard.bodyBudgetBytes < bodyLimitBytes)
    throw new Error(`BODY_BUDGET_BYTES (${guard.bodyBudgetBytes}) must be at least BODY_LIMIT_BYTES (${bodyLimitBytes})`);
  if (guard.headersTimeoutMs > guard.bodyTimeoutMs)
    throw new Error(`HEADERS_TIMEOUT_MS (${guard.headersTimeoutMs}) must not be above BODY_TIMEOUT_MS (${guard.bodyTimeoutMs})`);
  return guard;
}

/** Reads the configuration through EDGE_SETTINGS and readGrpcSecurity; the only reader of the environment. */
export function loadConfig(env: Env): Readonly<EdgeConfig> {
  const s = readSettings(env, EDGE_SETTINGS);
  return Object.freeze({
    host: s.BIND_HOST,
    port: s.EDGE_PORT,
    adminPort: s.EDGE_ADMIN_PORT,
    authAddr: s.AUTH_ADDR,
    quotaAddr: s.QUOTA_ADDR,
    billingAddr: s.BILLING_ADDR,
    grpcSecurity: readGrpcSecurity(env, 'edge'),
    providerBaseUrl: s.PROVIDER_BASE_URL.replace(/\/+$/, ''),
    providerApiKey: s.PROVIDER_API_KEY,
    providerMaxConnections: s.PROVIDER_MAX_CONNECTIONS,
    grpcTimeoutMs: s.GRPC_TIMEOUT_MS,
    leaseRenewMs: s.LEASE_RENEW_MS,
    finalBillsMax: s.EDGE_FINAL_BILLS_MAX,
    providerSilenceMs: s.PROVIDER_SILENCE_MS,
    providerReadTimeoutMs: s.PROVIDER_READ_TIMEOUT_MS,
    breaker: {
      failureThreshold: s.BREAKER_FAILURE_THRESHOLD,
      windowMs: s.BREAKER_WINDOW_MS,
      cooldownMs: s.BREAKER_COOLDOWN_MS,
    },
    bodyLimitBytes: s.BODY_LIMIT_BYTES,
    guard: checkGuard(
      {
        maxConnections: s.EDGE_MAX_CONNECTIONS,
        bodyBudgetBytes: s.BODY_BUDGET_BYTES,
        headersTimeoutMs: s.HEADERS_TIMEOUT_MS,
        bodyTimeoutMs: s.BODY_TIMEOUT_MS,
        keepAliveTimeoutMs: s.KEEP_ALIVE_TIMEOUT_MS,
      },
      s.BODY_LIMIT_BYTES,
    ),
    blockLibraryClients: s.BLOCK_LIBRARY_CLIENTS,
    blockedUserAgents: s.BLOCKED_USER_AGENTS.split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
    shutdownGraceMs: s.SHUTDOWN_GRACE_MS,
    logLevel: s.LOG_LEVEL as LogLevel,
  });
}
