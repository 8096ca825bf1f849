import { Client } from 'pg';
import Redis from 'ioredis';

/** What the stores have done so far: counters to take the difference of around a run. */
export interface StoreCounts {
  /** Transactions committed or rolled back in the bench's database (pg_stat_database). */
  pgTransactions: number;
  /** Statements the services sent (their db_statements_total). */
  pgStatements: number;
  /** Commands Redis has run (INFO commandstats: the commands scripts run are counted too). */
  redisCommands: number;
  /** Commands the services sent to Redis, each a round trip or part of one (their redis_commands_sent_total). */
  redisRoundTrips: number;
}

async function metricSum(url: string, name: string): Promise<number> {
  const text = await (await fetch(url)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

/**
 * Reads the stores' counters over connections it keeps for the whole bench (a connection opened
 * and closed around each reading would be a Postgres backend whose CPU the run miscounts).
 */
export class StoreCounter {
  private constructor(
    private readonly pg: Client,
    private readonly redis: Redis,
    private readonly metricsUrls: string[],
  ) {}

  /** `metricsUrls`: the /metrics of the services that talk to Postgres or Redis. */
  static async open(databaseUrl: string, redisUrl: string, metricsUrls: string[]): Promise<StoreCounter> {
    const pg = new Client({ connectionString: databaseUrl });
    await pg.connect();
    return new StoreCounter(pg, new Redis(redisUrl, { maxRetriesPerRequest: 1 }), metricsUrls);
  }

  async read(): Promise<StoreCounts> {
    // Backends report their counts to the statistics at most once a second.
    await new Promise((r) => setTimeout(r, 1100));
    const { rows } = await this.pg.query<{ n: string }>(
      'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    const stats = await this.redis.info('commandstats');
    const redisCommands = [...stats.matchAll(/calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    const summed = async (name: string) =>
      (await Promise.all(this.metricsUrls.map((url) => metricSum(url, name)))).reduce((a, b) => a + b, 0);
    const [pgStatements, redisRoundTrips] = await Promise.all([summed('db_statements_total'), summed('redis_commands_sent_total')]);
    return { pgTransactions: Number(rows[0]?.n ?? 0), pgStatements, redisCommands, redisRoundTrips };
  }

  /** The Redis server's process id (INFO server). */
  async redisPid(): Promise<number> {
    return Number(/process_id:(\d+)/.exec(await this.redis.info('server'))?.[1] ?? 0);
  }

  /** Calls of each command Redis has run so far (INFO commandstats), the bench's own INFO left out. */
  async redisCallsByCommand(): Promise<Record<string, number>> {
    const stats = await this.redis.info('commandstats');
    const calls: Record<string, number> = {};
    for (const [, command, n] of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (command !== 'info') calls[command] = Number(n);
    return calls;
  }

  async close(): Promise<void> {
    await this.pg.end().catch(() => undefined);
    this.redis.disconnect();
  }
}

/** Per request: the difference of two readings over `requests`. */
export function perRequest(before: StoreCounts, after: StoreCounts, requests: number): StoreCounts {
  const per = (key: keyof StoreCounts) => (after[key] - before[key]) / Math.max(1, requests);
  return {
    pgTransactions: per('pgTransactions'),
    pgStatements: per('pgStatements'),
    redisCommands: per('redisCommands'),
    redisRoundTrips: per('redisRoundTrips'),
  };
}

/** Commands per second of each command Redis ran between two readings of redisCallsByCommand, busiest first. */
export function commandsPerSecond(before: Record<string, number>, after: Record<string, number>, seconds: number): Record<string, number> {
  const rates = Object.entries(after)
    .map(([command, n]): [string, number] => [command, (n - (before[command] ?? 0)) / seconds])
    .filter(([, rate]) => rate > 0)
    .sort((a, b) => b[1] - a[1]);
  return Object.fromEntries(rates);
}
