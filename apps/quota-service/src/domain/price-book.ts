import { status } from '@grpc/grpc-js';
import { TokenPrices } from '@gw/money';
import { RpcError } from '@gw/service-kit';

/** One model's price as billing.v1 WatchPrices sends it. */
export interface ModelPrice extends TokenPrices {
  model: string;
}

/** One message of the watch: the whole table (`full`) or changed prices, at `version`. */
export interface PricesUpdate {
  version: number;
  full: boolean;
  prices: ModelPrice[];
}

/**
 * The prices quota-service holds and charges at, a coherent copy of billing-service's table: a
 * whole table replaces what was held, a change updates it, and while the watch is down there is
 * no table at all, so that no request is ever priced with a price billing-service has replaced
 * (billing's SetPrice returns once every watching replica acknowledged the change).
 */
export class PriceBook {
  private readonly prices = new Map<string, TokenPrices>();
  private held: number | undefined;

  /** The version held; undefined while there is no table. */
  get version(): number | undefined {
    return this.held;
  }

  /** Applies an update; false (nothing applied) for a change when no table is held. */
  apply(update: PricesUpdate): boolean {
    if (!update.full && this.held === undefined) return false;
    if (update.full) this.prices.clear();
    for (const { model, inputMicroPerMillion, outputMicroPerMillion } of update.prices) this.prices.set(model, { inputMicroPerMillion, outputMicroPerMillion });
    this.held = update.version;
    return true;
  }

  /** Forgets the table: the watch is down, changes may be missed. */
  drop(): void {
    this.held = undefined;
    this.prices.clear();
  }

  /** The model's price now: UNAVAILABLE while no table is held, FAILED_PRECONDITION for a model without a price (as billing's Authorize). */
  priceOf(model: string): TokenPrices {
    if (this.held === undefined) throw new RpcError(status.UNAVAILABLE, 'prices unavailable: the price watch is down');
    const price = this.prices.get(model);
    if (!price) throw new RpcError(status.FAILED_PRECONDITION, `model ${model} has no price`);
    return price;
  }
}
