import { PeriodicTask } from '@gw/service-kit';

/**
 * Collects "key used at" times in memory and writes them in one batch per interval, so that
 * recording the last use adds no database write to the path of a request.
 */
export class LastUsedRecorder {
  private pending = new Map<string, Date>();
  private readonly loop: PeriodicTask;

  constructor(
    private readonly write: (usedAt: Map<string, Date>) => Promise<void>,
    intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {
    // flush hands its own failure to onError.
    this.loop = new PeriodicTask(() => this.flush(), { intervalMs, failed: onError });
    this.loop.start();
  }

  record(keyId: string, at: Date = new Date()): void {
    this.pending.set(keyId, at);
  }

  /** Writes what is pending now; a failed write keeps the times for the next flush. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.write(batch);
    } catch (err) {
      for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at);
      this.onError(err);
    }
  }

  /** Stops the timer, waits for a write under way, and writes what is left. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.flush();
  }
}
