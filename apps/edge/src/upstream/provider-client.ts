import { Pool } from 'undici';
import { AppError } from '@gw/errors';

/** The provider's answer to a whole (not streamed) request, read to the end. */
export interface ProviderReply {
  status: number;
  contentType: string | undefined;
  providerRequestId: string | undefined;
  body: Buffer;
}

/**
 * The only place the edge calls the provider: `${baseUrl}/chat/completions` with the service's
 * own key (never the caller's), over a keep-alive pool.
 */
export class ProviderClient {
  private readonly pool: Pool;
  private readonly path: string;

  constructor(baseUrl: string, private readonly apiKey: string, private readonly silenceMs: number) {
    const url = new URL(`${baseUrl}/chat/completions`);
    this.pool = new Pool(url.origin, { connections: 256, keepAliveTimeout: 30_000, pipelining: 1 });
    this.path = url.pathname;
  }

  /**
   * Sends a chat request and reads the whole reply. No answer: UPSTREAM_DOWN; an answer that
   * breaks off: UPSTREAM_INTERRUPTED.
   */
  async complete(body: Record<string, unknown>, requestId: string): Promise<ProviderReply> {
    const res = await this.pool.request({
      path: this.path,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${this.apiKey}`,
        'x-request-id': requestId,
      },
      body: JSON.stringify(body),
      headersTimeout: this.silenceMs,
      bodyTimeout: this.silenceMs,
    }).catch(() => {
      throw new AppError('UPSTREAM_DOWN', 'The provider cannot be reached; retry after a minute.');
    });
    const header = (name: string) => {
      const v = res.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    return {
      status: res.statusCode,
      contentType: header('content-type'),
      providerRequestId: header('x-request-id'),
      body: Buffer.from(
        await res.body.arrayBuffer().catch(() => {
          throw new AppError('UPSTREAM_INTERRUPTED', 'The provider reply broke off.');
        }),
      ),
    };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
