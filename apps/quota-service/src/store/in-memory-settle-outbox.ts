import { ClaimedSettle, SettleOutbox, SettleRecord } from './settle-outbox';

/**
 * A SettleOutbox in this process's memory, for development (no REDIS_URL): bills survive a
 * failure of billing-service but not a restart of this process. One consumer only.
 */
export class InMemorySettleOutbox implements SettleOutbox {
  private readonly queue = new Map<string, SettleRecord>();
  private seq = 0;

  async append(record: SettleRecord): Promise<void> {
    this.queue.set(String(++this.seq), { ...record });
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
    for (const id of ids) this.queue.delete(id);
  }
}
