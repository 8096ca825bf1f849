import { healthV1 } from '@gw/contracts';
import { grpcClient } from './grpc-channel';
import { unaryCall } from './unary-call';

/** How to tell that a process is up: its gRPC health check, or an HTTP URL answering 200. */
export type Readiness = { kind: 'grpc'; address: string } | { kind: 'http'; url: string };

async function isReady(readiness: Readiness): Promise<boolean> {
  if (readiness.kind === 'http') {
    const res = await fetch(readiness.url, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
    return res?.status === 200;
  }
  const client = grpcClient(healthV1.HealthClient, readiness.address);
  try {
    const res = await unaryCall(client.check.bind(client), { service: '' }, 1000);
    return res.status === healthV1.HealthCheckResponse_ServingStatus.SERVING;
  } catch {
    return false;
  } finally {
    client.close();
  }
}

/** Polls a process's health check until it answers ready; rejects after `timeoutMs`. */
export async function waitReady(readiness: Readiness, timeoutMs: number, stillRunning: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await isReady(readiness))) {
    if (!stillRunning()) throw new Error('exited before it was ready');
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
