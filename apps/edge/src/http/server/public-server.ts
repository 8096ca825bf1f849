import { createServer, RequestListener, Server } from 'node:http';
import { Socket } from 'node:net';
import { connectionsRefused, openConnections } from '../../edge-metrics';
import { answerClientErrors } from './client-error-reply';

/** What callers may hold of the public server; each bound is an environment variable (config.ts). */
export interface ServerGuard {
  /** Open connections at most; one more is closed as soon as it is accepted. */
  maxConnections: number;
  /** Bytes of request bodies being read at once, across all requests (see BodyBudget). */
  bodyBudgetBytes: number;
  /** Time for a request's headers to arrive, from its first byte. */
  headersTimeoutMs: number;
  /** Time for a whole request, headers and body, to arrive, from its first byte. */
  bodyTimeoutMs: number;
  /** Time an idle keep-alive connection is kept open for a next request. */
  keepAliveTimeoutMs: number;
}

// How often Node looks for requests past their time: a timeout is enforced within a second.
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/**
 * Starts the public HTTP server on `host:port` with its guard: connections beyond the bound are
 * closed at once (counted in edge_connections_refused_total; edge_open_connections tells how many are open), requests whose headers or body
 * arrive too slowly get the front proxy's 408 and lose their connection, idle connections close.
 */
export async function startPublicServer(handler: RequestListener, host: string, port: number, guard: ServerGuard): Promise<Server> {
  const server = createServer(
    { headersTimeout: guard.headersTimeoutMs, requestTimeout: guard.bodyTimeoutMs, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
    handler,
  );
  server.keepAliveTimeout = guard.keepAliveTimeoutMs;
  server.maxConnections = guard.maxConnections;
  server.on('drop', () => connectionsRefused.inc());
  server.on('connection', (socket: Socket) => {
    openConnections.inc();
    socket.once('close', () => openConnections.dec());
  });
  answerClientErrors(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
