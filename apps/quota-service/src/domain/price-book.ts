import { TokenPrices } from '@gw/money';
import { DomainError } from '@gw/errors';

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

/** Why no table is held: the watch is down (or not up yet), or billing-service does not serve it (an older release). */
export type NoTable = 'down' | 'unsupported';

/**
 * The prices quota-service holds and charges at, a coherent copy of billing-service's table: a
 * whole table replaces what was held, a change updates it, and while the watch is down there is
 * no table at all, so that no request is ever priced with a price billing-service has replaced
 * (billing's SetPrice returns once every watching replica acknowledged the change).
 */
export class PriceBook {
  private readonly prices = new Map<string, TokenPrices>();
  private held: number | undefined;
  private missing: NoTable = 'down';
  private readonly waiters = new Set<() => void>();
  /** Set by the watch: asked when a table is wanted and none is held, to reopen at once rather than after its backoff. */
  onWanted: () => void = () => undefined;

  /** The version held; undefined while there is no table. */
  get version(): number | undefined {
    return this.held;
  }

  /** Applies an update; false (nothing applied) for a change when no table is held. */
  apply(update: PricesUpdate): boolean {
    if (!update.full && this.held === undefined) return false;
    if (update.full) this.prices.clear();
    for (const { model, inputMicroPerMillion, outputMicroPerMillion } of update.prices)
      this.prices.set(model, { inputMicroPerMillion, outputMicroPerMillion });
    this.held = update.version;
    for (const wake of this.waiters) wake();
    return true;
  }

  /** Forgets the table: the watch is down, changes may be missed (or billing-service does not serve it: no use waiting). */
  drop(why: NoTable = 'down'): void {
    this.held = undefined;
    this.missing = why;
    this.prices.clear();
    if (why === 'unsupported') for (const wake of this.waiters) wake();
  }

  /**
   * Resolves once a table is held (or billing-service turns out not to serve one), asking the watch
   * to reopen at once, or after `timeoutMs` without one: a replica whose watch is reconnecting (billing-service just came back, or this
   * replica just started) prices the request a moment later instead of refusing it.
   */
  async wait(timeoutMs: number): Promise<void> {
    if (this.held !== undefined) return;
    this.onWanted();
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(done);
    });
  }

  /**
   * The model's price now: UNAVAILABLE while no table is held, UNIMPLEMENTED when billing-service
   * does not serve the watch (the caller takes the older calls: nothing was done), FAILED_PRECONDITION
   * for a model without a price (as billing's Authorize).
   */
  priceOf(model: string): TokenPrices {
    if (this.held === undefined) {
      if (this.missing === 'unsupported')
        throw new DomainError('unimplemented', 'Admit is not served with this billing-service (no price watch): use the older calls');
      throw new DomainError('unavailable', 'prices unavailable: the price watch is down');
    }
    const price = this.prices.get(model);
    if (!price) throw new DomainError('failed-precondition', `model ${model} has no price`);
    return price;
  }
}
