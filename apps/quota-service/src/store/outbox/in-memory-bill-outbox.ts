import { ClaimedRecord, OutboxBacklog, OutboxRecord, BillOutbox } from './bill-outbox';

/**
 * A BillOutbox in this process's memory, for development (no REDIS_URL): bills survive a
 * failure of billing-service but not a restart of this process. One consumer only.
 */
export class InMemoryBillOutbox implements BillOutbox {
  private readonly queue = new Map<string, OutboxRecord>();
  private readonly appendedAt = new Map<string, number>();
  private seq = 0;
  /** Request ids of the bills (kind `bill`) queued and not yet acknowledged, as Redis' unbilled marks. */
  private readonly unbilled = new Set<string>();

  async append(record: OutboxRecord): Promise<void> {
    this.push(record);
  }

  /** Appends at once, within the caller's synchronous step (the in-memory admission store's). */
  push(record: OutboxRecord): void {
    const id = String(++this.seq);
    this.queue.set(id, { ...record });
    if (record.kind === 'bill') this.unbilled.add(record.requestId);
    this.appendedAt.set(id, Date.now());
  }

  async claim(max: number): Promise<ClaimedRecord[]> {
    const claimed: ClaimedRecord[] = [];
    for (const [id, record] of this.queue) {
      if (claimed.length >= max) break;
      claimed.push({ id, record: { ...record } });
    }
    return claimed;
  }

  async ack(ids: string[]): Promise<void> {
    for (const id of ids) {
      const record = this.queue.get(id);
      if (record?.kind === 'bill') this.unbilled.delete(record.requestId);
      this.queue.delete(id);
      this.appendedAt.delete(id);
    }
  }

  /** Whether a bill of the request waits (queued, not acknowledged); a delivered bill of the id clears it, as in Redis. */
  isUnbilled(requestId: string): boolean {
    return this.unbilled.has(requestId);
  }

  /** Whether a bill (kind `bill`) of the account waits, not acknowledged. */
  hasUnbilled(accountId: string): boolean {
    return [...this.queue.values()].some(
      (record) => record.kind === 'bill' && record.accountId === accountId && this.unbilled.has(record.requestId),
    );
  }

  async backlog(): Promise<OutboxBacklog> {
    const oldest = this.appendedAt.values().next().value;
    return { records: this.queue.size, oldestAgeSeconds: oldest === undefined ? 0 : (Date.now() - oldest) / 1000 };
  }
}
