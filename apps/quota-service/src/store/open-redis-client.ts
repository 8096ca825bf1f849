import Redis from 'ioredis';
import { counter, Logger } from '@gw/service-kit';

const commandsSent = counter('redis_commands_sent_total', 'Commands sent to Redis (a script is one), each a round trip or part of one pipelined write.');

/** How to reach Redis and how long any one command may take. */
export interface RedisClientOptions {
  url: string;
  /** Deadline of every command (REDIS_TIMEOUT_MS). */
  commandTimeoutMs: number;
  /** Run on each new connection, not awaited (to load the scripts); a failure is only logged. */
  onReady?: (client: Redis) => Promise<void>;
}

/**
 * Opens an ioredis client that never makes a caller wait longer than the command deadline: no
 * offline queue (a command while disconnected fails at once), one retry at most, and
 * reconnection in the background forever. Resolves once the first connection is ready or has
 * failed (bounded), so that a service can start, and answer UNAVAILABLE, while Redis is down.
 */
export async function openRedisClient(options: RedisClientOptions, logger: Logger): Promise<Redis> {
  const connectTimeoutMs = Math.max(options.commandTimeoutMs * 5, 1000);
  const client = new Redis(options.url, {
    lazyConnect: true,
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: connectTimeoutMs,
    disconnectTimeout: connectTimeoutMs,
    // A connection that stops answering mid-command is replaced rather than waited on forever.
    socketTimeout: connectTimeoutMs,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (times) => Math.min(100 * times, 2000),
    // The commands of one turn of the event loop (many requests' scripts) go out in one write:
    // on loopback a write costs about what Redis spends running a script.
    enableAutoPipelining: true,
  });
  // Counted where every command passes, auto-pipelined ones too (ioredis hands each to sendCommand).
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((...args: Parameters<Redis['sendCommand']>) => {
    commandsSent.inc();
    return send(...args);
  }) as Redis['sendCommand'];
  let up: boolean | undefined;
  client.on('error', (err: unknown) => {
    if (up !== false) logger.warn('redis unavailable', { err });
    up = false;
  });
  client.on('ready', () => {
    up = true;
    logger.info('redis ready');
    options.onReady?.(client).catch((err: unknown) => logger.warn('redis ready hook failed', { err }));
  });
  await client.connect().catch(() => undefined);
  return client;
}
