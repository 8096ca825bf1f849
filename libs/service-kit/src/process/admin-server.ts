import { createServer, Server } from 'node:http';
import { METRICS_CONTENT_TYPE, renderMetrics } from './metrics';

/**
 * A process's probe and metrics endpoints, on a port of their own: for the edge, so the public
 * API stays exact; for the gRPC services, because the kubelet's gRPC probe cannot speak TLS.
 */
export interface AdminServer {
  port: number;
  /** From now on /readyz answers 503, so balancers stop sending traffic. */
  setNotReady(): void;
  close(): Promise<void>;
}

/**
 * Serves GET /healthz (alive), GET /readyz (ready for traffic) and GET /metrics (Prometheus
 * text; 500 when it cannot be rendered). Nothing else: no data, no operation.
 */
export async function startAdminServer(host: string, port: number): Promise<AdminServer> {
  let ready = true;
  const server: Server = createServer((req, res) => {
    if (req.url === '/metrics' && req.method === 'GET') {
      renderMetrics().then(
        (text) => res.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE }).end(text),
        () => res.writeHead(500).end(),
      );
      return;
    }
    const ok = req.url === '/healthz' || (req.url === '/readyz' && ready);
    const known = req.url === '/healthz' || req.url === '/readyz';
    res.writeHead(ok ? 200 : known ? 503 : 404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ status: ok ? 'ok' : known ? 'not ready' : 'not found' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    setNotReady: () => {
      ready = false;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
