import { Pool } from 'undici';
import { AppError } from '@gw/errors';
import { Logger } from '@gw/service-kit';
import { BreakerSettings, CircuitBreaker } from './circuit-breaker';
import { showBreakerState } from '../edge-metrics';

/** The provider's answer as its headers arrive; the body is read by the caller of {@link ProviderClient.send}. */
export interface ProviderResponse {
  status: number;
  contentType: string | undefined;
  /** The provider's own request id (its x-request-id header). */
  providerRequestId: string | undefined;
  /** The body, piece by piece as it arrives; iterating throws when the reply breaks off. */
  body: AsyncIterable<Buffer>;
}

/** Where and how the provider is called. */
export interface ProviderSettings {
  baseUrl: string;
  /** The service's own provider key; the caller's key never leaves the edge. */
  apiKey: string;
  /** Silence after which a reply is given up for good (before its headers or between two pieces). */
  readTimeoutMs: number;
  /** Connections to the provider at most: one per reply in progress (streams hold theirs). */
  maxConnections: number;
  breaker: BreakerSettings;
}

const down = (message: string) => new AppError('UPSTREAM_DOWN', message);

/**
 * The only place the edge calls the provider: `${baseUrl}/chat/completions` with the service's
 * own key, over a keep-alive pool, behind a circuit breaker. Connection failures and 5xx answers
 * count against the provider; while the breaker is open no call is made.
 */
export class ProviderClient {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly breaker: CircuitBreaker;

  constructor(
    private readonly settings: ProviderSettings,
    private readonly logger: Logger,
  ) {
    const url = new URL(`${settings.baseUrl}/chat/completions`);
    this.pool = new Pool(url.origin, { connections: settings.maxConnections, keepAliveTimeout: 30_000, pipelining: 1 });
    this.path = url.pathname;
    showBreakerState('closed');
    this.breaker = new CircuitBreaker(settings.breaker, (state) => {
      showBreakerState(state);
      if (state === 'open') logger.warn('provider circuit breaker', { state });
      else logger.info('provider circuit breaker', { state });
    });
  }

  /**
   * Sends a chat request, with the caller's x-request-id (never its key), and resolves once the
   * provider's headers arrive. Throws UPSTREAM_DOWN when the breaker is open or the provider
   * cannot be reached.
   */
  async send(body: Record<string, unknown>, callerRequestId: string): Promise<ProviderResponse> {
    const report = this.breaker.admit();
    if (!report) throw down('The provider is failing; retry after a minute.');
    const res = await this.pool
      .request({
        path: this.path,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.settings.apiKey}`, 'x-request-id': callerRequestId },
        body: JSON.stringify(body),
        headersTimeout: this.settings.readTimeoutMs,
        bodyTimeout: this.settings.readTimeoutMs,
      })
      .catch((err: unknown) => {
        report(false);
        this.logger.warn('provider unreachable', { requestId: callerRequestId, reason: err instanceof Error ? err.message : String(err) });
        throw down('The provider cannot be reached; retry after a minute.');
      });
    report(res.statusCode < 500);
    const header = (name: string) => {
      const value = res.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    return { status: res.statusCode, contentType: header('content-type'), providerRequestId: header('x-request-id'), body: res.body };
  }

  /** Aborts every call still under way (its reply counts as broken off) and closes the connections. */
  close(): Promise<void> {
    return this.pool.destroy();
  }
}
