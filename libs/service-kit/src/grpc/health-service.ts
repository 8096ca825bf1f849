import { ServerUnaryCall, ServerWritableStream, sendUnaryData, status } from '@grpc/grpc-js';
import { healthV1 } from '@gw/contracts';

type ServingStatus = healthV1.HealthCheckResponse_ServingStatus;
const { SERVING, NOT_SERVING, SERVICE_UNKNOWN } = healthV1.HealthCheckResponse_ServingStatus;

/** The standard grpc.health.v1 service, with the server's status ("") and one per service. */
export class HealthService {
  private readonly statuses = new Map<string, ServingStatus>();
  private readonly watchers = new Set<ServerWritableStream<healthV1.HealthCheckRequest, healthV1.HealthCheckResponse>>();

  constructor(serviceNames: string[]) {
    for (const name of ['', ...serviceNames]) this.statuses.set(name, SERVING);
  }

  /** Marks every service NOT_SERVING, so that probes and balancers stop sending traffic. */
  setNotServing(): void {
    for (const name of this.statuses.keys()) this.set(name, NOT_SERVING);
  }

  /** The grpc-js implementation of the Health service. */
  implementation(): healthV1.HealthServer {
    return {
      check: (
        call: ServerUnaryCall<healthV1.HealthCheckRequest, healthV1.HealthCheckResponse>,
        callback: sendUnaryData<healthV1.HealthCheckResponse>,
      ) => {
        const current = this.statuses.get(call.request.service);
        if (current === undefined) callback({ code: status.NOT_FOUND, details: 'unknown service' });
        else callback(null, { status: current });
      },
      watch: (call) => {
        call.write({ status: this.statuses.get(call.request.service) ?? SERVICE_UNKNOWN });
        this.watchers.add(call);
        call.on('cancelled', () => this.watchers.delete(call));
      },
    };
  }

  /** Ends open Watch streams (at shutdown, so that the server can close). */
  endWatches(): void {
    for (const call of this.watchers) call.end();
    this.watchers.clear();
  }

  private set(name: string, next: ServingStatus): void {
    this.statuses.set(name, next);
    for (const call of this.watchers) {
      if (call.request.service === name) call.write({ status: next });
    }
  }
}
