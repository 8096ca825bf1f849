import { Server, ServerCredentials, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { healthV1 } from '@gw/contracts';
import { GRPC_OPTIONS } from './grpc-channel';
import { HealthService } from './health-service';
import { startMetricsServer } from './metrics-server';

/** One service to serve: its generated definition, full name and implementation. */
export interface ServedService {
  name: string;
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

/** A running gRPC server. */
export interface RunningGrpcServer {
  port: number;
  /** The port of GET /metrics. */
  metricsPort: number;
  health: HealthService;
  /** Stops taking calls, lets running ones finish for up to `graceMs`, then cuts the rest. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Starts a gRPC server with the given services plus grpc.health.v1 on host:port, and the
 * process's Prometheus metrics on host:metricsPort (0 picks a port for either).
 */
export async function startGrpcServer(host: string, port: number, services: ServedService[], metricsPort: number): Promise<RunningGrpcServer> {
  const server = new Server(GRPC_OPTIONS);
  const health = new HealthService(services.map((s) => s.name));
  for (const s of services) server.addService(s.definition, s.implementation);
  server.addService(healthV1.HealthService, health.implementation() as unknown as UntypedServiceImplementation);
  const boundPort = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  const metrics = await startMetricsServer(host, metricsPort).catch((err: unknown) => {
    server.forceShutdown();
    throw err;
  });
  return {
    port: boundPort,
    metricsPort: metrics.port,
    health,
    stop: async (graceMs) => {
      await new Promise<void>((resolve) => {
        health.endWatches();
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      await metrics.close();
    },
  };
}
