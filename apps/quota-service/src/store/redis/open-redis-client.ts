import Redis, { Cluster } from 'ioredis';
import { counter, Logger } from '@gw/service-kit';
import { keepCommandDeadlines } from './command-deadlines';

const commandsSent = counter(
  'redis_commands_sent_total',
  'Commands sent to Redis (a script is one), each a round trip or part of one pipelined write.',
);

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
    connectTimeout: connectTimeoutMs,
    disconnectTimeout: connectTimeoutMs,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (times) => Math.min(100 * times, 2000),
    // Each command is written as it is sent. ioredis's auto-pipelining (the commands of one turn
    // of the event loop in one write) cost quota-service more CPU per script than the writes it
    // saved, with 1 to 16 admissions in flight, and Redis no less.
    enableAutoPipelining: false,
  });
  // The deadline of every command, and a connection that stops answering mid-command replaced
  // rather than waited on forever: one timer per connection rather than ioredis's two per command.
  keepCommandDeadlines(client, options.commandTimeoutMs, connectTimeoutMs);
  watch(client, options.onReady && (() => options.onReady?.(client)), logger);
  await client.connect().catch(() => undefined);
  return client;
}

/** Counts every command sent (auto-pipelined ones too: ioredis hands each to sendCommand), logs up and down once each, runs onReady. */
function watch(client: Redis | Cluster, onReady: (() => Promise<unknown> | undefined) | undefined, logger: Logger): void {
  const send = client.sendCommand.bind(client) as (...args: unknown[]) => unknown;
  (client as { sendCommand: (...args: unknown[]) => unknown }).sendCommand = (...args: unknown[]) => {
    commandsSent.inc();
    return send(...args);
  };
  let up: boolean | undefined;
  client.on('error', (err: unknown) => {
    if (up !== false) logger.warn('redis unavailable', { err });
    up = false;
  });
  client.on('ready', () => {
    up = true;
    logger.info('redis ready');
    onReady?.()?.catch((err: unknown) => logger.warn('redis ready hook failed', { err }));
  });
}

/**
 * Opens an ioredis cluster client on REDIS_CLUSTER_NODES (it finds the other nodes and follows
 * MOVED and ASK redirections), with the same guarantees as openRedisClient: no offline queue, a
 * deadline on every command, reconnection in the background, and the commands of one turn of the
 * event loop sent together (per node). The scripts are loaded on every master at each ready.
 */
export async function openRedisCluster(nodes: string[], options: Omit<RedisClientOptions, 'url'>, logger: Logger): Promise<Cluster> {
  const connectTimeoutMs = Math.max(options.commandTimeoutMs * 5, 1000);
  const client = new Cluster(
    nodes.map((node) => ({ host: node.slice(0, node.lastIndexOf(':')), port: Number(node.slice(node.lastIndexOf(':') + 1)) })),
    {
      lazyConnect: true,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      maxRedirections: 16,
      clusterRetryStrategy: (times) => Math.min(100 * times, 2000),
      slotsRefreshTimeout: connectTimeoutMs,
      redisOptions: {
        connectTimeout: connectTimeoutMs,
        maxRetriesPerRequest: 1,
      },
    },
  );
  // Each master's and replica's connection keeps its commands' deadlines, as openRedisClient's
  // (each try of a command its own deadline: open-redis-cluster.test.ts kills a master under load).
  client.on('+node', (node: Redis) => keepCommandDeadlines(node, options.commandTimeoutMs, connectTimeoutMs));
  const { onReady } = options;
  watch(client, onReady && (() => Promise.all(client.nodes('master').map(onReady))), logger);
  await client.connect().catch(() => undefined);
  return client;
}
