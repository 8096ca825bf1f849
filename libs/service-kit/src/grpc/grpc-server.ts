import { Server, ServerOptions, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { healthV1, METHOD_CALLERS } from '@gw/contracts';
import { accessInterceptor } from './access-interceptor';
import { drainCallStreams } from './call-stream-handler';
import { startAdminServer } from '../process/admin-server';
import { CONNECTION_AGE_GRACE_MS, GRPC_OPTIONS, MAX_CONNECTION_AGE_LIMIT_MS } from './grpc-channel';
import { serverCredentials } from './grpc-credentials';
import { refuseUndecodable, tolerantDecoding } from './undecodable-request';
import { plainTextCallers } from './verified-caller';
import { GrpcSecurity, readGrpcSecurity } from './grpc-security';
import { Env } from '../process/env-readers';
import { HealthService } from './health-service';
import { Logger } from '../process/logger';

/** One service to serve: its generated definition, full name and implementation. */
export interface ServedService {
  name: string;
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

/** Where and how a service serves gRPC (the fields every service's config has). */
export interface GrpcServerSettings {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The admin port: GET /healthz, /readyz and /metrics; 0 picks a free port. */
  metricsPort: number;
  security: GrpcSecurity;
  /** A connection older than this is asked to go away, so clients look the name up again and find new replicas. */
  maxConnectionAgeMs: number;
}

/** What every service's settings table holds for its gRPC server. */
interface ServerSettingValues {
  BIND_HOST: string;
  GRPC_MAX_CONNECTION_AGE_MS: number;
}

/** A service's GrpcServerSettings: its table's values, its own two ports, and GRPC_TLS_* for `identity` (readGrpcSecurity). */
export function readGrpcServerSettings(
  env: Env,
  values: ServerSettingValues,
  identity: string,
  ports: Pick<GrpcServerSettings, 'port' | 'metricsPort'>,
): GrpcServerSettings {
  return {
    host: values.BIND_HOST,
    ...ports,
    security: readGrpcSecurity(env, identity),
    maxConnectionAgeMs: values.GRPC_MAX_CONNECTION_AGE_MS,
  };
}

/** A running gRPC server. */
export interface RunningGrpcServer {
  port: number;
  /** The admin port (GET /healthz, /readyz, /metrics). */
  metricsPort: number;
  health: HealthService;
  /** Health NOT_SERVING and /readyz 503, so that probes and balancers stop sending traffic. */
  setNotServing(): void;
  /** Stops taking calls, lets running ones finish for up to `graceMs`, then cuts the rest. */
  stop(graceMs: number): Promise<void>;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/**
 * Starts a gRPC server with the given services plus grpc.health.v1, behind the access check of
 * contracts' METHOD_CALLERS (mutual TLS), which records each call's verified caller (isCaller),
 * and the admin port. A request that cannot be decoded (an int64 past 2^53 − 1) is answered
 * INVALID_ARGUMENT, not grpc-js' INTERNAL. Plain text is refused on anything but a loopback
 * address: no caller could be told apart there.
 */
export async function startGrpcServer(settings: GrpcServerSettings, services: ServedService[], logger: Logger): Promise<RunningGrpcServer> {
  const { host, security } = settings;
  if (security.kind === 'insecure') {
    if (!LOOPBACK.test(host))
      throw new Error(`GRPC_INSECURE=true serves plain text, allowed only on a loopback address, not BIND_HOST=${host}`);
    logger.warn('gRPC in plain text (GRPC_INSECURE=true): callers are not checked');
  }
  if (settings.maxConnectionAgeMs > MAX_CONNECTION_AGE_LIMIT_MS) {
    throw new Error(
      `GRPC_MAX_CONNECTION_AGE_MS=${settings.maxConnectionAgeMs} is above ${MAX_CONNECTION_AGE_LIMIT_MS}: a client's keepalive ping would find its connections draining and cut their calls`,
    );
  }
  const options: ServerOptions = {
    ...GRPC_OPTIONS,
    'grpc.max_connection_age_ms': settings.maxConnectionAgeMs,
    'grpc.max_connection_age_grace_ms': CONNECTION_AGE_GRACE_MS,
    interceptors: [security.kind === 'mtls' ? accessInterceptor(METHOD_CALLERS, logger) : plainTextCallers, refuseUndecodable(logger)],
  };
  const server = new Server(options);
  const health = new HealthService(services.map((s) => s.name));
  for (const s of services) server.addService(tolerantDecoding(s.definition), s.implementation);
  server.addService(healthV1.HealthService, health.implementation() as unknown as UntypedServiceImplementation);
  const boundPort = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${settings.port}`, serverCredentials(security), (err, p) => (err ? reject(err) : resolve(p)));
  });
  const admin = await startAdminServer(host, settings.metricsPort).catch((err: unknown) => {
    server.forceShutdown();
    throw err;
  });
  return {
    port: boundPort,
    metricsPort: admin.port,
    health,
    setNotServing: () => {
      health.setNotServing();
      admin.setNotReady();
    },
    stop: async (graceMs) => {
      await new Promise<void>((resolve) => {
        health.endWatches();
        drainCallStreams();
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      await admin.close();
    },
  };
}
