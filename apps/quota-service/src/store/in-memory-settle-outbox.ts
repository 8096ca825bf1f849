import { ClaimedSettle, OutboxBacklog, OutboxRecord, SettleOutbox } from './settle-outbox';

/**
 * A SettleOutbox in this process's memory, for development (no REDIS_URL): bills survive a
 * failure of billing-service but not a restart of this process. One consumer only.
 */
export class InMemorySettleOutbox implements SettleOutbox {
  private readonly queue = new Map<string, OutboxRecord>();
  private readonly appendedAt = new Map<string, number>();
  private seq = 0;

  async append(record: OutboxRecord): Promise<void> {
    this.push(record);
  }

  /** Appends at once, within the caller's synchronous step (the in-memory admission store's). */
  push(record: OutboxRecord): void {
    const id = String(++this.seq);
    this.queue.set(id, { ...record });
    this.appendedAt.set(id, Date.now());
  }

  async claim(max: number): Promise<ClaimedSettle[]> {
    const claimed: ClaimedSettle[] = [];
    for (const [id, record] of this.queue) {
      if (claimed.length >= max) break;
      claimed.push({ id, record: { ...record } });
    }
    return claimed;
  }

  async ack(ids: string[]): Promise<void> {
    for (const id of ids) {
      this.queue.delete(id);
      this.appendedAt.delete(id);
    }
  }

  async backlog(): Promise<OutboxBacklog> {
    const oldest = this.appendedAt.values().next().value;
    return { records: this.queue.size, oldestAgeSeconds: oldest === undefined ? 0 : (Date.now() - oldest) / 1000 };
  }
}
