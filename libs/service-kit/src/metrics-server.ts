import { createServer, ServerResponse } from 'node:http';
import { METRICS_CONTENT_TYPE, renderMetrics } from './metrics';

/** A running metrics endpoint. */
export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Answers a scrape: the Prometheus text of every metric of this process (500 when it cannot be rendered). */
export function sendMetrics(res: ServerResponse): void {
  renderMetrics().then(
    (text) => res.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE }).end(text),
    () => res.writeHead(500).end(),
  );
}

/** Serves GET /metrics (Prometheus text) on its own port, for the gRPC services. */
export async function startMetricsServer(host: string, port: number): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    sendMetrics(res);
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
