import { createServer, Server } from 'node:http';
import { sendMetrics } from '@gw/service-kit';

/** The edge's probe and metrics endpoints, on a port of their own so the public API stays exact. */
export interface AdminServer {
  port: number;
  /** From now on /readyz answers 503, so balancers stop sending traffic. */
  setNotReady(): void;
  close(): Promise<void>;
}

/** Serves GET /healthz (alive), GET /readyz (ready for traffic) and GET /metrics (Prometheus text). */
export async function startAdminServer(host: string, port: number): Promise<AdminServer> {
  let ready = true;
  const server: Server = createServer((req, res) => {
    if (req.url === '/metrics' && req.method === 'GET') {
      sendMetrics(res);
      return;
    }
    const ok = req.url === '/healthz' || (req.url === '/readyz' && ready);
    const known = req.url === '/healthz' || req.url === '/readyz';
    res.writeHead(ok ? 200 : known ? 503 : 404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ status: ok ? 'ok' : known ? 'not ready' : 'not found' }));
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    setNotReady: () => {
      ready = false;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
