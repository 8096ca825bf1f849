import { isFinalFailure, Logger, PeriodicTask } from '@gw/service-kit';
import { lapsedLeases } from '../quota-metrics';
import { LeaseRecord, LeaseStore } from '../store/leases/lease-store';
import { isAdmittedLease, RequestFinisher } from './request-finisher';

/** Timing of the reaper. */
export interface ReaperOptions {
  /** How often it looks for lapsed leases. */
  intervalMs: number;
  /** A lapsed lease handed to one replica is handed out again after this long unless finished. */
  claimMs: number;
  /** Leases finished per look at most. */
  batchSize: number;
  /**
   * LAPSE_GRACE_MS: how long a lapsed request of Admit keeps its hold and place for its edge to
   * come back before it is charged the estimate; 0 finishes it at the lapse.
   */
  graceMs: number;
}

/**
 * Ends the requests whose leases lapsed (their edge died, stalled, or lost quota-service for
 * longer than the lease time). A request admitted by Admit is first marked lapsed and keeps what
 * it holds (its hold, its place: the place follows docs/api.md#rate-limits alone) for `graceMs`, so that an
 * edge that stalled and comes back still finds them and its real finish is an ordinary one; a
 * renewal in the grace clears the mark. Only a lease still lapsed when the grace ends is finished
 * from its last renewal, as FinishRequest would, marked estimated: charged at its admission's
 * terms, the rest of its hold given back, its place freed, its usage counted, its bill queued (a
 * real finish arriving later corrects it). An older request's lease is finished at the lapse, as
 * before. One that cannot be finished now (the store is down) is handed out again after
 * `claimMs`; one whose record is refused for good is dropped with an error log and a metric.
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

  /** Ends the lapsed leases there are now (one batch): see the class comment; returns how many were finished. */
  async reapOnce(): Promise<number> {
    const lapsed = await this.leases.claimLapsed(this.options.batchSize, this.options.claimMs);
    let finished = 0;
    for (const lease of lapsed) {
      try {
        if (this.options.graceMs > 0 && isAdmittedLease(lease) && lease.lapsedAtMs === undefined) {
          await this.hold(lease);
          continue;
        }
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

  /** Marks a lapsed lease lapsed: its request keeps its hold and place through the grace. */
  private async hold(lease: LeaseRecord): Promise<void> {
    const held = await this.leases.holdLapsed(lease, this.options.graceMs);
    lapsedLeases.inc({ outcome: held });
    if (held === 'held')
      this.logger.warn('lease lapsed, request keeps its hold and place for the grace', {
        billingId: lease.requestId,
        accountId: lease.accountId,
        graceMs: this.options.graceMs,
      });
  }
}
