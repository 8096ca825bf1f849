import { countWatcherCut } from '../billing-metrics';
import { PriceChange, PriceRecord, PriceTable } from '../store/billing-records';
import { DomainError } from '@gw/errors';

/** What a watcher (one quota-service replica's stream) is sent: the whole table, or one change. */
export interface PricesMessage {
  version: number;
  /** True when `prices` is the whole table, replacing what the watcher had. */
  full: boolean;
  prices: PriceRecord[];
}

/** One WatchPrices stream, as the hub drives it. */
export interface PriceWatcher {
  send(message: PricesMessage): void;
  /** Ends the stream with an error: the watcher refuses paid work until it has a whole table again. */
  end(reason: string): void;
}

/** What a stream does with the hub while it is open. */
export interface PriceWatch {
  /** The watcher applied `version`: 0 up to the last version sent to it, else INVALID_ARGUMENT. */
  acknowledge(version: number): void;
  remove(): void;
}

interface WatcherState {
  /** The last version sent to the watcher. */
  sent: number;
  /** The highest version it acknowledged. */
  applied: number;
}

/** A delivery waiting for every watcher to acknowledge its version. */
interface PendingDelivery {
  version: number;
  done(): void;
}

/**
 * This replica's copy of the price table and the streams watching it. A stream gets the whole
 * table when it opens, then every change. `deliver` resolves once every watcher has acknowledged
 * a version at least the change's, or has had its stream ended for not doing so within
 * `ackTimeoutMs`: either way, no watcher of this replica still prices with what the change replaced.
 * Without a table (before the feed loaded one, or once the feed is lost) no stream is accepted.
 */
export class PriceWatchHub {
  private readonly watchers = new Map<PriceWatcher, WatcherState>();
  private readonly prices = new Map<string, PriceRecord>();
  private readonly pending = new Set<PendingDelivery>();
  private tableVersion = 0;

  constructor(private readonly ackTimeoutMs: number) {}

  /** The version of the table held; 0 when none is. */
  get version(): number {
    return this.tableVersion;
  }

  get size(): number {
    return this.watchers.size;
  }

  /** Takes the whole table (at start, and after the feed was lost and every watcher ended). */
  load(table: PriceTable): void {
    this.prices.clear();
    for (const price of table.prices) this.prices.set(price.model, price);
    this.tableVersion = table.version;
  }

  /** Registers a stream and sends it the whole table; UNAVAILABLE while the hub holds none. */
  add(watcher: PriceWatcher): PriceWatch {
    if (this.tableVersion === 0) throw new DomainError('unavailable', 'billing-service has no current price table: try again');
    const state: WatcherState = { sent: this.tableVersion, applied: 0 };
    this.watchers.set(watcher, state);
    watcher.send({
      version: this.tableVersion,
      full: true,
      prices: [...this.prices.values()].sort((a, b) => a.model.localeCompare(b.model)),
    });
    return {
      acknowledge: (version) => {
        if (!Number.isInteger(version) || version < 0 || version > state.sent) {
          throw new DomainError('invalid-argument', `version must be one sent: 0 to ${state.sent}`);
        }
        state.applied = Math.max(state.applied, version);
        this.resolveAcknowledged();
      },
      remove: () => this.remove(watcher),
    };
  }

  /**
   * Applies a change newer than the table (an older one is already in it) and sends it to every
   * watcher; resolves once each has acknowledged its version or been cut.
   */
  deliver(change: PriceChange): Promise<void> {
    if (change.version > this.tableVersion) {
      this.tableVersion = change.version;
      this.prices.set(change.price.model, change.price);
      for (const [watcher, state] of this.watchers) {
        state.sent = change.version;
        watcher.send({ version: change.version, full: false, prices: [change.price] });
      }
    }
    return new Promise((resolve) => {
      const delivery: PendingDelivery = {
        version: change.version,
        done: () => {
          clearTimeout(timer);
          this.pending.delete(delivery);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        for (const [watcher, state] of this.watchers) {
          if (state.applied >= change.version) continue;
          countWatcherCut();
          this.cut(watcher, `prices version ${change.version} not acknowledged within ${this.ackTimeoutMs} ms`);
        }
        delivery.done();
      }, this.ackTimeoutMs);
      this.pending.add(delivery);
      this.resolveAcknowledged();
    });
  }

  /** Ends every stream and drops the table (shutdown, or the feed lost): every watcher resyncs. */
  endAll(reason: string): void {
    this.tableVersion = 0;
    for (const watcher of [...this.watchers.keys()]) this.cut(watcher, reason);
  }

  private cut(watcher: PriceWatcher, reason: string): void {
    if (!this.watchers.has(watcher)) return;
    this.remove(watcher);
    watcher.end(reason);
  }

  private remove(watcher: PriceWatcher): void {
    if (this.watchers.delete(watcher)) this.resolveAcknowledged();
  }

  /** Resolves the deliveries every watcher has now acknowledged. */
  private resolveAcknowledged(): void {
    let applied = Infinity;
    for (const state of this.watchers.values()) applied = Math.min(applied, state.applied);
    for (const delivery of [...this.pending]) if (delivery.version <= applied) delivery.done();
  }
}
