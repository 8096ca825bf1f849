import { AuditActor } from '@gw/service-kit';
import { PriceRecord } from '../store/billing-records';
import { BillingStore } from '../store/billing-store';
import { PriceWatchHub } from './price-watch-hub';

/** How a price change reaches the price watchers of every replica of billing-service. */
export interface PriceFeed {
  /**
   * Stores the price; resolves once every watcher of every replica has acknowledged the change,
   * or had its stream ended for not doing so in time. The change is recorded in the audit trail, made `by`.
   */
  publish(price: PriceRecord, by: AuditActor): Promise<PriceRecord>;
  stop(): Promise<void>;
}

/**
 * The feed of a single replica (the embedded database): a change goes straight to this replica's
 * watchers. Prices are stored one at a time, so that changes reach the hub in version order.
 */
export class LocalPriceFeed implements PriceFeed {
  private storing: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly store: Pick<BillingStore, 'setPrice'>,
    private readonly hub: PriceWatchHub,
  ) {}

  /** Loads the hub with the stored table. */
  static async start(store: Pick<BillingStore, 'setPrice' | 'priceTable'>, hub: PriceWatchHub): Promise<LocalPriceFeed> {
    hub.load(await store.priceTable());
    return new LocalPriceFeed(store, hub);
  }

  async publish(price: PriceRecord, by: AuditActor): Promise<PriceRecord> {
    const stored = this.storing.then(() => this.store.setPrice(price, by));
    this.storing = stored.catch(() => undefined);
    const change = await stored;
    await this.hub.deliver(change);
    return change.price;
  }

  /** Waits for a price being stored. */
  async stop(): Promise<void> {
    await this.storing;
  }
}
