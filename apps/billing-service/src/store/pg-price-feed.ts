import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { AuditActor, Database, Logger, PeriodicTask } from '@gw/service-kit';
import { countPriceChangeUnconfirmed } from '../billing-metrics';
import { PriceFeed } from '../domain/price-feed';
import { PriceWatchHub } from '../domain/price-watch-hub';
import { PriceChange, PriceRecord } from './billing-records';
import { BillingStore } from './billing-store';
import { PRICE_CHANGES_CHANNEL } from './price-changes-channel';

const ACKS = 'billing_price_acks';
const APP_NAME = 'gw-billing-prices';
/** How often the listening connection is checked; a check that hangs fails after two of these. */
const CHECK_MS = 1000;
const RECONNECT_MS = 1000;
/**
 * Beyond the watchers' ack timeout, how long a publisher waits for a replica's confirmation: by
 * then a replica that has lost its connection has found out (a failed check) and ended its streams.
 */
const CONFIRM_MARGIN_MS = 3 * CHECK_MS + 1000;

/** A change notification as billing.set_price writes it (migrations/sql-functions.md). */
function readChange(payload: string): PriceChange | undefined {
  try {
    const m = JSON.parse(payload) as { version?: unknown; model?: unknown; input?: unknown; output?: unknown };
    const ints = [m.version, m.input, m.output];
    if (typeof m.model !== 'string' || !ints.every((n) => Number.isSafeInteger(n))) return undefined;
    return {
      version: m.version as number,
      price: { model: m.model, inputMicroPerMillion: m.input as number, outputMicroPerMillion: m.output as number },
    };
  } catch {
    return undefined;
  }
}

/**
 * Price changes between replicas, through Postgres LISTEN/NOTIFY on a connection of its own,
 * named `gw-billing-prices:<replica>` so that a publisher can list the replicas that must confirm
 * (pg_stat_activity). billing.set_price notifies a change in the transaction that makes it; each
 * replica hands it to its watchers (PriceWatchHub) and, once they applied it or were cut,
 * notifies its confirmation: the highest version it has delivered. Versions come one after the
 * other: a gap means a notification was missed, and counts as losing the connection. When the
 * connection is lost (or a check of it fails) every watcher's stream is ended, and the table is
 * read again on the new connection before any stream is accepted.
 */
export class PgPriceFeed implements PriceFeed {
  private readonly replica = randomBytes(8).toString('hex');
  /** The highest version each replica confirmed. */
  private readonly confirmed = new Map<string, number>();
  /** Publishers waiting for confirmations, each checked on every confirmation. */
  private readonly waiting = new Set<() => void>();
  private client: Client | undefined;
  // Checks are not awaited: one that hangs must not delay the next; it fails on its own (query_timeout).
  private readonly checks = new PeriodicTask(() => void this.check(), {
    intervalMs: CHECK_MS,
    failed: (err) => this.logger.warn('price feed not checked', { err }),
  });
  private stopped = false;

  private constructor(
    private readonly url: string,
    private readonly db: Database,
    private readonly store: Pick<BillingStore, 'setPrice' | 'priceTable'>,
    private readonly hub: PriceWatchHub,
    private readonly ackTimeoutMs: number,
    private readonly logger: Logger,
  ) {}

  static async start(
    url: string,
    db: Database,
    store: Pick<BillingStore, 'setPrice' | 'priceTable'>,
    hub: PriceWatchHub,
    ackTimeoutMs: number,
    logger: Logger,
  ): Promise<PgPriceFeed> {
    const feed = new PgPriceFeed(url, db, store, hub, ackTimeoutMs, logger);
    await feed.connect();
    feed.checks.start();
    return feed;
  }

  async publish(price: PriceRecord, by: AuditActor): Promise<PriceRecord> {
    // Listed before the change commits: a replica that connects later reads a table that has it.
    const { rows } = await this.db.query<{ name: string }>(
      'SELECT application_name AS name FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1',
      [`${APP_NAME}:%`],
    );
    const replicas = rows.map((r) => r.name.slice(APP_NAME.length + 1));
    for (const known of this.confirmed.keys()) if (!replicas.includes(known)) this.confirmed.delete(known);
    const change = await this.store.setPrice(price, by);
    await this.confirmedBy(replicas, change.version);
    return change.price;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.checks.stop();
    await this.client?.end().catch(() => undefined);
  }

  private confirmedBy(replicas: string[], version: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (replicas.every((r) => (this.confirmed.get(r) ?? 0) >= version)) finish();
      };
      const timer = setTimeout(() => {
        const left = replicas.filter((r) => (this.confirmed.get(r) ?? 0) < version);
        this.logger.warn('price change not confirmed by every replica in time', { version, replicasLeft: left.length });
        countPriceChangeUnconfirmed();
        finish();
      }, this.ackTimeoutMs + CONFIRM_MARGIN_MS);
      const finish = () => {
        clearTimeout(timer);
        this.waiting.delete(check);
        resolve();
      };
      this.waiting.add(check);
      check();
    });
  }

  private async connect(): Promise<void> {
    const client = new Client({
      connectionString: this.url,
      application_name: `${APP_NAME}:${this.replica}`,
      query_timeout: 2 * CHECK_MS,
      keepAlive: true,
    });
    // Changes heard before the table is read are kept, and handed on after it in their order.
    let early: PriceChange[] | undefined = [];
    client.on('notification', (n) => {
      if (n.channel === ACKS) return this.onConfirmation(n.payload ?? '');
      const change = readChange(n.payload ?? '');
      if (!change) return this.logger.warn('unreadable price change notification ignored', { channel: n.channel });
      if (early) early.push(change);
      else void this.onChange(client, change);
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${PRICE_CHANGES_CHANNEL}`);
      await client.query(`LISTEN ${ACKS}`);
      // Read after LISTEN: a change committed since is heard, one committed before is in the table.
      this.hub.load(await this.store.priceTable());
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    const heard = early;
    early = undefined;
    for (const change of heard) void this.onChange(client, change);
  }

  private onConfirmation(payload: string): void {
    let m: { replica?: unknown; version?: unknown };
    try {
      m = JSON.parse(payload) as typeof m;
    } catch {
      return;
    }
    if (typeof m.replica !== 'string' || !Number.isSafeInteger(m.version)) return;
    this.confirmed.set(m.replica, Math.max(this.confirmed.get(m.replica) ?? 0, m.version as number));
    for (const check of [...this.waiting]) check();
  }

  private async onChange(client: Client, change: PriceChange): Promise<void> {
    if (this.client !== client) return;
    if (change.version > this.hub.version + 1)
      return this.lost(client, new Error(`price version ${change.version} after ${this.hub.version}: a change was missed`));
    await this.hub.deliver(change);
    // Through the pool: true even if this connection has gone meanwhile (its watchers were cut).
    await this.db
      .query('SELECT pg_notify($1, $2)', [ACKS, JSON.stringify({ replica: this.replica, version: change.version })])
      .catch((err: unknown) => this.logger.warn('price change confirmation not sent', { err, version: change.version }));
  }

  private async check(): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      await client.query('SELECT 1');
    } catch (err) {
      this.lost(client, err);
    }
  }

  /** The connection is gone: no watcher may trust its table; connect again and read the table anew. */
  private lost(client: Client, err: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.hub.endAll('price feed lost: resync');
    if (this.stopped) return;
    this.logger.warn('price feed lost, reconnecting', { err });
    const retry = () => {
      if (this.stopped) return;
      this.connect().catch((e: unknown) => {
        this.logger.warn('price feed reconnect failed', { err: e });
        setTimeout(retry, RECONNECT_MS);
      });
    };
    setTimeout(retry, RECONNECT_MS);
  }
}
