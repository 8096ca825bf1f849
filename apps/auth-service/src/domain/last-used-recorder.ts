/**
 * Collects "key used at" times in memory and writes them in one batch per interval, so that
 * recording the last use adds no database write to the path of a request.
 */
export class LastUsedRecorder {
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (usedAt: Map<string, Date>) => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  record(keyId: string, at: Date = new Date()): void {
    this.pending.set(keyId, at);
    this.timer ??= setTimeout(() => void this.flush(), this.intervalMs);
  }

  /** Writes what is pending now; a failed write keeps the times for the next flush. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.write(batch);
    } catch (err) {
      for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at);
      this.onError(err);
      this.timer ??= setTimeout(() => void this.flush(), this.intervalMs);
    }
  }
}
