import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Logger } from '@gw/service-kit';
import { chatCompletionsRoute } from './chat-completions-route';
import { ProviderSimConfig } from './config';
import { providerErrorBody } from './provider-error';
import { newRequestId } from './request-id';
import { sendJson } from './send-json';
import { SimStats } from './sim-stats';

/** A running provider simulator. */
export interface ProviderSimApp {
  port: number;
  /** Stops accepting, closes idle connections, lets running replies finish within the grace time. */
  stop(): Promise<void>;
}

// Longer than the clients' idle timeout (undici: 4 s), so the client always closes an idle connection first.
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** Serves the provider's chat-completions API plus /healthz and /sim/stats over plain node:http. */
export async function startProviderSimApp(config: ProviderSimConfig, logger: Logger): Promise<ProviderSimApp> {
  const stats = new SimStats();
  const chat = chatCompletionsRoute({ apiKey: config.apiKey, stats, logger });
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    switch (`${req.method} ${path}`) {
      case 'POST /v1/chat/completions':
        return chat(req, res);
      case 'GET /healthz':
        return sendJson(res, 200, { status: 'ok' });
      case 'GET /sim/stats':
        return sendJson(res, 200, stats.snapshot());
      case 'POST /sim/stats/reset':
        stats.reset();
        return sendJson(res, 200, stats.snapshot());
      default:
        return sendJson(res, 404, providerErrorBody(404, `Unknown request URL: ${req.method} ${path}.`, null, 'unknown_url'));
    }
  };
  let stopping = false;
  const server = createServer({ keepAlive: true, noDelay: true }, (req, res) => {
    res.setHeader('x-request-id', newRequestId());
    // server.close() leaves a keep-alive connection open once its running reply ends; close it then.
    res.once('finish', () => stopping && setImmediate(() => server.closeIdleConnections()));
    route(req, res).catch((err: unknown) => {
      if (res.destroyed) return logger.debug('client went away', { err });
      logger.error('request failed', { err });
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, providerErrorBody(500, 'The server had an error while processing your request.'));
    });
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
  await listen(server, config.port, config.host);
  const port = (server.address() as AddressInfo).port;
  logger.info('listening', { port, auth: config.apiKey ? 'key required' : 'any key' });
  return {
    port,
    stop: () => {
      stopping = true;
      return close(server, config.shutdownGraceMs);
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function close(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
