import { isFinalFailure, Logger, PeriodicTask } from '@gw/service-kit';
import { lapsedLeases } from '../quota-metrics';
import { LeaseStore } from '../store/leases/lease-store';
import { RequestFinisher } from './request-finisher';

/** Timing of the reaper. */
export interface ReaperOptions {
  /** How often it looks for lapsed leases. */
  intervalMs: number;
  /** A lapsed lease handed to one replica is handed out again after this long unless finished. */
  claimMs: number;
  /** Leases finished per look at most. */
  batchSize: number;
}

/**
 * Finishes the requests whose leases lapsed (their edge died, or lost quota-service for longer
 * than the lease time): each exactly as FinishRequest would, with the bill of its last renewal,
 * marked estimated, so its place is freed, its usage counted and its bill queued (a paid request
 * admitted by Admit charged at its hold's prices, its hold back in the line). One that
 * cannot be finished now (the store is down) is handed out again after `claimMs`; one whose
 * record is refused for good is dropped with an error log and a metric. A request that ends on
 * its edge after all is billed once: billing-service keeps the first bill of a request id.
 */
export class LeaseReaper {
  private readonly loop: PeriodicTask;

  constructor(
    private readonly leases: LeaseStore,
    private readonly finisher: RequestFinisher,
    private readonly options: ReaperOptions,
    private readonly logger: Logger,
  ) {
    this.loop = new PeriodicTask(
      async () => {
        await this.reapOnce();
      },
      {
        intervalMs: options.intervalMs,
        failed: (err) => this.logger.warn('lease store unavailable, will retry', { err }),
      },
    );
  }

  /** Reaps until stopped. */
  start(): void {
    this.loop.start();
  }

  /** Stops the loop and waits for a running pass. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Finishes the lapsed leases there are now (one batch); returns how many were finished. */
  async reapOnce(): Promise<number> {
    const lapsed = await this.leases.claimLapsed(this.options.batchSize, this.options.claimMs);
    let finished = 0;
    for (const lease of lapsed) {
      try {
        await this.finisher.finishLapsed(lease);
        lapsedLeases.inc({ outcome: 'finished' });
        this.logger.warn('lease lapsed, request finished from its last renewal', {
          billingId: lease.requestId,
          accountId: lease.accountId,
        });
        finished++;
      } catch (err) {
        if (!isFinalFailure(err)) {
          lapsedLeases.inc({ outcome: 'retry' });
          this.logger.warn('lapsed lease not finished, will retry', { billingId: lease.requestId, err });
          continue;
        }
        lapsedLeases.inc({ outcome: 'dropped' });
        this.logger.error('lapsed lease refused, its bill dropped', { billingId: lease.requestId, lease, err });
        await this.leases.end(lease);
      }
    }
    return finished;
  }
}
