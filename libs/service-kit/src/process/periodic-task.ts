import { Backoff, backoffMs } from '../grpc/retry-policy';

/**
 * What a pass tells its task: `more` when it stopped with work left (the next pass runs at once),
 * `failed` when it failed and has logged why itself (it counts towards the backoff as a throw
 * does); nothing for a pass that is done.
 */
export type PassOutcome = 'more' | 'failed' | void;

/** How a PeriodicTask paces its passes. */
export interface PeriodicTaskOptions {
  /** The wait between passes, counted from the end of the last one. */
  intervalMs: number;
  /**
   * After failures in a row, wait backoffMs(failures, backoff) instead (the one retry policy);
   * without it, a failed pass is followed after `intervalMs` as any other.
   */
  backoff?: Backoff;
  /** Hears each error a pass throws (to log it); the loop goes on. */
  failed: (err: unknown) => void;
}

/**
 * The one background loop of every service: runs `pass` every `intervalMs`, never two passes at
 * once, at once again when a pass had more work, later (with `backoff`) after failures. Its timer
 * never holds a process open. `stop` ends the loop and waits for a pass in progress, so that what
 * the loop uses can be closed after it.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private failures = 0;

  constructor(
    private readonly pass: () => PassOutcome | Promise<PassOutcome>,
    private readonly options: PeriodicTaskOptions,
  ) {}

  /** Starts the loop (again after a stop): its first pass after `intervalMs`, or at once with `runNow`. */
  start(runNow = false): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.failures = 0;
    if (this.running === undefined) this.schedule(runNow ? 0 : this.options.intervalMs);
  }

  /** Ends the loop; resolves once a pass in progress has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.runPass().then((delay) => {
        this.running = undefined;
        if (!this.stopped) this.schedule(delay);
      });
    }, delayMs);
    this.timer.unref();
  }

  /** Runs one pass; resolves to the wait before the next. */
  private async runPass(): Promise<number> {
    let outcome: PassOutcome;
    try {
      outcome = await this.pass();
    } catch (err) {
      this.options.failed(err);
      outcome = 'failed';
    }
    this.failures = outcome === 'failed' ? this.failures + 1 : 0;
    if (outcome === 'more') return 0;
    const { backoff, intervalMs } = this.options;
    return this.failures > 0 && backoff ? backoffMs(this.failures, backoff) : intervalMs;
  }
}
