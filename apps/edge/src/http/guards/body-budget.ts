import { bodyBytesReading } from '../../edge-metrics';

/**
 * The bytes of request bodies being read at once, across every request of the edge. A body is
 * let in only while the budget has room for it (its declared length, or each piece of a chunked
 * body as it arrives), so that callers cannot make the edge hold more unchecked bodies than the
 * budget, however many connections they open. Its use is the gauge
 * edge_body_bytes_reading.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly totalBytes: number) {}

  /** Takes `bytes` from the budget; false, and nothing taken, when that would overrun it. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.totalBytes) return false;
    this.used += bytes;
    bodyBytesReading.set(this.used);
    return true;
  }

  /** Gives back bytes taken before. */
  give(bytes: number): void {
    this.used -= bytes;
    bodyBytesReading.set(this.used);
  }

  /** Bytes taken now. */
  get inUse(): number {
    return this.used;
  }
}
