import { Logger, PassOutcome, PeriodicTask } from '@gw/service-kit';
import { KeptThresholdStore } from '../store/kept-threshold-store';

/** Thresholds handed over per pass. */
const PAGE = 100;
/** The wait between passes that failed (billing-service not answering yet), at first. */
const RETRY = { firstMs: 1000, maxMs: 60_000 };

/** billing-service as the handover sees it. */
export interface ThresholdKeeper {
  setThreshold(accountId: string, thresholdMicro: number, setBy: string, keepExisting: boolean): Promise<unknown>;
}

/**
 * Hands the low-balance thresholds the console kept (before billing-service kept them, to judge
 * each move of the balance against them) over to billing-service, once: each is set there unless
 * one is set there already (a holder's newer choice), then forgotten here. Runs from the start
 * until nothing is kept, retrying while billing-service does not answer; run again, it finds
 * nothing to do.
 */
export class ThresholdHandover {
  private readonly task: PeriodicTask;

  constructor(
    private readonly store: KeptThresholdStore,
    private readonly billing: ThresholdKeeper,
    private readonly logger: Logger,
  ) {
    this.task = new PeriodicTask(() => this.pass(), {
      intervalMs: RETRY.firstMs,
      backoff: RETRY,
      failed: (err) => logger.warn('low-balance thresholds not handed over to billing-service yet, will retry', { err }),
    });
  }

  start(): void {
    this.task.start(true);
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** Hands over one page; ends the task when nothing is left. */
  async pass(): Promise<PassOutcome> {
    const kept = await this.store.kept(PAGE);
    for (const threshold of kept) {
      await this.billing.setThreshold(threshold.accountId, threshold.thresholdMicro, threshold.setBy, true);
      await this.store.forget(threshold);
    }
    if (kept.length) this.logger.info('low-balance thresholds handed over to billing-service', { count: kept.length });
    if (kept.length === PAGE) return 'more';
    // Not awaited: the stop waits for this very pass.
    void this.task.stop();
  }
}
