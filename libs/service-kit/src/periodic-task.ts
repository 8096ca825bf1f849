/**
 * A background loop: `run` every `intervalMs` (counted from the end of the last run), never two
 * runs at once. A run that fails is reported to `failed` and the loop goes on. `stop` ends the
 * loop and waits for a run in progress.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly run: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly failed: (err: unknown) => void,
  ) {}

  /** Starts the loop: its first run after `intervalMs`, or at once with `runNow`. */
  start(runNow = false): void {
    this.stopped = false;
    this.schedule(runNow ? 0 : this.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs = this.intervalMs): void {
    this.timer = setTimeout(() => {
      this.running = this.run().then(() => undefined, this.failed);
      void this.running.finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule();
      });
    }, delayMs);
    this.timer.unref();
  }
}
