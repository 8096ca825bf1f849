import { Logger, PeriodicTask } from '@gw/service-kit';
import { HoldStore } from '../store/hold-store';

// Upper bound of holds released by one sweep, so a sweep never runs unbounded.
const MAX_RELEASED_PER_SWEEP = 1000;

/**
 * Releases, on a timer, holds neither placed nor renewed within the TTL. A running request's
 * hold is renewed with its lease every few seconds, so a hold that old belongs to a request that
 * never got as far as a lease (its edge died between Authorize and AcquirePlace, say) and whose
 * settle will never come; releasing it frees the balance again.
 */
export class HoldSweeper {
  private readonly task: PeriodicTask;

  constructor(
    private readonly store: Pick<HoldStore, 'releaseHoldsOlderThan'>,
    private readonly ttlSeconds: number,
    intervalMs: number,
    private readonly logger: Logger,
  ) {
    this.task = new PeriodicTask(
      async () => {
        await this.sweepOnce();
      },
      { intervalMs, failed: (err) => this.logger.warn('hold sweep failed, will retry', { err }) },
    );
  }

  /** Sweeps every `intervalMs` until stopped. */
  start(): void {
    this.task.start();
  }

  /** Releases the stale holds now; returns how many. */
  async sweepOnce(): Promise<number> {
    const released = await this.store.releaseHoldsOlderThan(this.ttlSeconds, MAX_RELEASED_PER_SWEEP);
    if (released > 0) this.logger.info('stale holds released', { released, ttlSeconds: this.ttlSeconds });
    return released;
  }

  /** Stops the timer and waits for a sweep that is running. */
  stop(): Promise<void> {
    return this.task.stop();
  }
}
