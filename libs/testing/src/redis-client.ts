import Redis from 'ioredis';

function withTimeout<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Connects to Redis at `url` and checks it with PING, each step bounded by `timeoutMs`. The
 * client neither reconnects nor queues commands while offline, so a dead server fails fast
 * instead of hanging. Rejects (after closing the client) when the server does not answer.
 */
export async function connectRedis(url: string, timeoutMs = 2000): Promise<Redis> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await withTimeout(client.connect(), timeoutMs, `connecting to ${url}`);
    await withTimeout(client.ping(), timeoutMs, `PING to ${url}`);
    return client;
  } catch (error) {
    // disconnect() on an already closed client would leave ioredis' 2 s disconnect timer running.
    if (client.status !== 'end') client.disconnect();
    throw error;
  }
}
