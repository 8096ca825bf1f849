import { crc32 } from 'node:zlib';
import Redis, { Cluster } from 'ioredis';
import { Client as PgClient } from 'pg';

/** Where quota-service keeps an account's places and its bills waiting (apps/quota-service/src/store/redis/redis-keys.ts). */
interface KeyNames {
  places(accountId: string): string;
  outboxes: string[];
}

const SHARDS = 64;

/** The account layout, on one Redis server. */
const accountLayout = (prefix: string): KeyNames => ({
  places: (id) => `${prefix}{${id}}:places`,
  outboxes: [`${prefix}{outbox}:settles`],
});

/** The shard layout, as on a Redis Cluster: each account in shard crc32(id) mod 64. */
const shardLayout = (prefix: string): KeyNames => ({
  places: (id) => `${prefix}{s${crc32(id) % SHARDS}}:a:${id}:places`,
  outboxes: Array.from({ length: SHARDS }, (_, k) => `${prefix}{s${k}}:outbox:settles`),
});

/** One row of billing.ledger. */
export interface LedgerRow {
  billingId: string;
  accountId: string;
  amountMicro: number;
  paid: boolean;
  estimated: boolean;
}

/** Everything the money and the limits of some accounts come to, read straight from the stores. */
export interface Books {
  ledger: LedgerRow[];
  /** billing.balances: balance and amount held, micro-LYD (an account without a row has 0 and 0). */
  balances: Map<string, { balanceMicro: number; heldMicro: number }>;
  /** billing.holds rows per account. */
  holds: Map<string, number>;
  /** Concurrency places held in Redis per account. */
  places: Map<string, number>;
  /** Bills in the settle outbox, not yet delivered to billing-service. */
  outbox: number;
}

/** Reads the books of some accounts: billing's Postgres tables and quota-service's Redis keys. */
export class BooksReader {
  private constructor(
    private readonly pg: PgClient,
    private readonly redis: Redis | Cluster,
    private readonly keys: KeyNames,
  ) {}

  /** Connects to the test's database and Redis; `keyPrefix` is the stack's REDIS_KEY_PREFIX. */
  static async open(databaseUrl: string, redisUrl: string, keyPrefix: string): Promise<BooksReader> {
    const pg = new PgClient({ connectionString: databaseUrl });
    await pg.connect();
    return new BooksReader(pg, new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 }), accountLayout(keyPrefix));
  }

  /** As open, on a Redis Cluster (`host:port` of its nodes), where quota-service takes the shard layout. */
  static async openOnCluster(databaseUrl: string, nodes: string[], keyPrefix: string): Promise<BooksReader> {
    const pg = new PgClient({ connectionString: databaseUrl });
    await pg.connect();
    const startup = nodes.map((node) => ({
      host: node.slice(0, node.lastIndexOf(':')),
      port: Number(node.slice(node.lastIndexOf(':') + 1)),
    }));
    return new BooksReader(pg, new Redis.Cluster(startup, { redisOptions: { maxRetriesPerRequest: 3 } }), shardLayout(keyPrefix));
  }

  /** The books of these accounts now. */
  async read(accountIds: string[]): Promise<Books> {
    // One snapshot of the three tables, so that a charge landing meanwhile shows in all or none.
    await this.pg.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const ledger = await this.pg.query<{
      request_id: string;
      account_id: string;
      amount_micro: string;
      paid: boolean;
      usage_estimated: boolean;
    }>('SELECT request_id, account_id, amount_micro::text, paid, usage_estimated FROM billing.ledger WHERE account_id = ANY($1)', [
      accountIds,
    ]);
    const balances = await this.pg.query<{ account_id: string; balance_micro: string; held_micro: string }>(
      'SELECT account_id, balance_micro::text, held_micro::text FROM billing.balances WHERE account_id = ANY($1)',
      [accountIds],
    );
    const holds = await this.pg.query<{ account_id: string; n: string }>(
      'SELECT account_id, count(*)::text AS n FROM billing.holds WHERE account_id = ANY($1) GROUP BY account_id',
      [accountIds],
    );
    await this.pg.query('COMMIT');
    const placeCounts = await Promise.all(accountIds.map((id) => this.redis.hlen(this.keys.places(id))));
    const outboxes = await Promise.all(this.keys.outboxes.map((key) => this.redis.xlen(key)));
    return {
      ledger: ledger.rows.map((r) => ({
        billingId: r.request_id,
        accountId: r.account_id,
        amountMicro: Number(r.amount_micro),
        paid: r.paid,
        estimated: r.usage_estimated,
      })),
      balances: new Map(
        accountIds.map((id) => {
          const row = balances.rows.find((b) => b.account_id === id);
          return [id, { balanceMicro: Number(row?.balance_micro ?? 0), heldMicro: Number(row?.held_micro ?? 0) }];
        }),
      ),
      holds: new Map(accountIds.map((id) => [id, Number(holds.rows.find((h) => h.account_id === id)?.n ?? 0)])),
      places: new Map(accountIds.map((id, i) => [id, placeCounts[i]])),
      outbox: outboxes.reduce((a, b) => a + b, 0),
    };
  }

  /**
   * Polls until nothing is left in flight: no hold, no place, an empty outbox, and a ledger that
   * did not grow since the last look. Gives up after `timeoutMs` and returns the books as they
   * are, so that what did not drain is reported rather than hidden behind a timeout.
   */
  async drained(accountIds: string[], timeoutMs: number): Promise<{ books: Books; drained: boolean }> {
    const deadline = Date.now() + timeoutMs;
    let before = -1;
    for (;;) {
      const books = await this.read(accountIds);
      const settled =
        books.outbox === 0 && [...books.holds.values(), ...books.places.values()].every((n) => n === 0) && books.ledger.length === before;
      if (settled) return { books, drained: true };
      if (Date.now() > deadline) return { books, drained: false };
      before = books.ledger.length;
      // Settled means unchanged over a second: the pause is the measure.
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }

  /** Closes both connections. */
  async close(): Promise<void> {
    await this.pg.end();
    await this.redis.quit();
  }
}
