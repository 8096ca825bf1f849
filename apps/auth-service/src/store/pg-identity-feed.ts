import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { Database, Logger, PeriodicTask } from '@gw/service-kit';
import { IdentityChange, IdentityChangeHub } from '../domain/identity-change-hub';
import { HEARTBEAT_MS, IdentityFeed } from '../domain/identity-feed';

const CHANGES = 'auth_identity_changes';
const ACKS = 'auth_identity_acks';
/** Each replica's own channel, for the fences that answer syncs. */
const FENCES = 'auth_identity_fence_';
const APP_NAME = 'gw-auth-feed';
/** Past this, a replica that has not confirmed is stuck: its edges, hearing nothing for 3 s, have dropped their caches. */
const PUBLISH_TIMEOUT_MS = 4000;
const RECONNECT_MS = 1000;

interface Published {
  awaited: Set<string>;
  done(): void;
}

/**
 * The change feed between replicas, through Postgres LISTEN/NOTIFY on a connection of its own,
 * named `gw-auth-feed:<replica>` so that a publisher can list the replicas that must confirm
 * (pg_stat_activity). Each replica hands a change to its edges (IdentityChangeHub) and notifies
 * that they applied it. The heartbeat goes out only after a query on this connection succeeds,
 * so every change notified before it has been handed on: an edge that hears a heartbeat has
 * heard every change made before it. When the connection fails, every edge stream is ended.
 * Changes are notified through the service's own pool, so they reach the other replicas even
 * while this connection is being replaced.
 *
 * While an edge waits for a sync, the check is a fence instead: a notification on the replica's
 * own channel, sent on this connection, and waited for. Postgres delivers notifications in the
 * order their transactions committed, so once the fence is back every change committed before
 * the sync arrived has been handed on, whichever replica heard it first. (That a `SELECT 1`
 * returns after them holds in practice, but rests on when the notifier signals the listeners,
 * which it does after its commit: another replica may already have handed the change on.)
 */
export class PgIdentityFeed implements IdentityFeed {
  private readonly replica = randomBytes(8).toString('hex');
  private readonly published = new Map<string, Published>();
  private readonly fenceChannel = `${FENCES}${this.replica}`;
  private readonly fences = new Map<string, () => void>();
  private fenceCount = 0;
  private client: Client | undefined;
  // Beats are not awaited: one whose check hangs must not delay the next (the edges distrust 3 s
  // of silence); the hung check fails on its own after two beats.
  private readonly heartbeat = new PeriodicTask(() => void this.beat(), {
    intervalMs: HEARTBEAT_MS,
    failed: (err) => this.logger.warn('heartbeat not sent', { err }),
  });
  private stopped = false;

  private constructor(
    private readonly url: string,
    private readonly db: Database,
    private readonly hub: IdentityChangeHub,
    private readonly logger: Logger,
  ) {}

  static async start(url: string, db: Database, hub: IdentityChangeHub, logger: Logger): Promise<PgIdentityFeed> {
    const feed = new PgIdentityFeed(url, db, hub, logger);
    await feed.connect();
    feed.heartbeat.start();
    return feed;
  }

  async publish(change: IdentityChange): Promise<void> {
    const id = randomBytes(8).toString('hex');
    // Notifications stay within one database: replicas on another database of the server are not ours.
    const { rows } = await this.db.query<{ name: string }>(
      'SELECT application_name AS name FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1',
      [`${APP_NAME}:%`],
    );
    const confirmed = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.published.delete(id);
        this.logger.warn('identity change not confirmed by every replica in time', { replicasLeft: published.awaited.size });
        resolve();
      }, PUBLISH_TIMEOUT_MS);
      const published: Published = {
        awaited: new Set(rows.map((r) => r.name.slice(APP_NAME.length + 1))),
        done: () => (clearTimeout(timer), resolve()),
      };
      // No replica listens (each feed being replaced has ended its edges' streams): nobody to wait for.
      if (published.awaited.size === 0) published.done();
      else this.published.set(id, published);
    });
    await this.db.query('SELECT pg_notify($1, $2)', [CHANGES, JSON.stringify({ id, keyId: change.keyId, accountId: change.accountId })]);
    await confirmed;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.heartbeat.stop();
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    // A heartbeat query that hangs (a silent network) fails after two beats, so the feed is replaced.
    const client = new Client({
      connectionString: this.url,
      application_name: `${APP_NAME}:${this.replica}`,
      query_timeout: 2 * HEARTBEAT_MS,
      keepAlive: true,
    });
    client.on('notification', (n) => void this.onNotification(client, n.channel, n.payload ?? ''));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    await client.connect();
    await client.query(`LISTEN ${CHANGES}`);
    await client.query(`LISTEN ${ACKS}`);
    await client.query(`LISTEN ${this.fenceChannel}`);
    this.client = client;
  }

  private async onNotification(client: Client, channel: string, payload: string): Promise<void> {
    if (channel === this.fenceChannel) return this.fences.get(payload)?.();
    let message: { id: string; keyId?: string; accountId?: string; replica?: string };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      // Anyone who may connect can NOTIFY on these channels: what is not ours is ignored.
      this.logger.warn('unreadable identity change notification ignored', { channel });
      return;
    }
    if (channel === ACKS) {
      const published = this.published.get(message.id);
      published?.awaited.delete(message.replica ?? '');
      if (published && published.awaited.size === 0) {
        this.published.delete(message.id);
        published.done();
      }
      return;
    }
    await this.hub.deliver({ keyId: message.keyId, accountId: message.accountId });
    await client
      .query('SELECT pg_notify($1, $2)', [ACKS, JSON.stringify({ id: message.id, replica: this.replica })])
      .catch((err: unknown) => this.lost(client, err));
  }

  private async beat(): Promise<void> {
    const client = this.client;
    if (!client) return;
    // Taken before the check starts: it proves that what was notified before they arrived was handed on.
    const syncs = this.hub.takeSyncs();
    try {
      await (syncs.size ? this.fence(client) : client.query('SELECT 1'));
      if (this.client === client) this.hub.heartbeat(syncs);
    } catch (err) {
      this.lost(client, err);
    }
  }

  /** Resolves once a notification sent now on `client` has come back on it; fails after two beats. */
  private async fence(client: Client): Promise<void> {
    const token = String(++this.fenceCount);
    const back = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fences.delete(token);
        reject(new Error('fence notification not back in time'));
      }, 2 * HEARTBEAT_MS);
      this.fences.set(token, () => {
        clearTimeout(timer);
        this.fences.delete(token);
        resolve();
      });
    });
    await Promise.all([client.query('SELECT pg_notify($1, $2)', [this.fenceChannel, token]), back]);
  }

  /** The connection is gone: no edge may trust its cache; connect again. */
  private lost(client: Client, err: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.hub.endAll('identity change feed lost');
    if (this.stopped) return;
    this.logger.warn('identity change feed lost, reconnecting', { err });
    const retry = () => {
      if (this.stopped) return;
      this.connect().catch((e: unknown) => {
        this.logger.warn('identity change feed reconnect failed', { err: e });
        setTimeout(retry, RECONNECT_MS);
      });
    };
    setTimeout(retry, RECONNECT_MS);
  }
}
