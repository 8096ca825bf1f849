import { LeaseRecord, LeaseStore } from './lease-store';

/** A LeaseStore in this process's memory, for development (no REDIS_URL): one replica only. */
export class InMemoryLeaseStore implements LeaseStore {
  private readonly leases = new Map<string, { record: LeaseRecord; lapsesAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async start(lease: LeaseRecord, ttlMs: number): Promise<void> {
    this.leases.set(lease.requestId, { record: { ...lease }, lapsesAt: this.now() + ttlMs });
  }

  async renew(leases: LeaseRecord[], ttlMs: number): Promise<string[]> {
    const unknown: string[] = [];
    for (const lease of leases) {
      if (this.leases.has(lease.requestId)) this.leases.set(lease.requestId, { record: { ...lease }, lapsesAt: this.now() + ttlMs });
      else unknown.push(lease.requestId);
    }
    return unknown;
  }

  async end(requestId: string): Promise<void> {
    this.leases.delete(requestId);
  }

  async claimLapsed(max: number, claimMs: number): Promise<LeaseRecord[]> {
    const now = this.now();
    const lapsed = [...this.leases.values()]
      .filter((lease) => lease.lapsesAt <= now)
      .sort((a, b) => a.lapsesAt - b.lapsesAt)
      .slice(0, max);
    for (const lease of lapsed) lease.lapsesAt = now + claimMs;
    return lapsed.map((lease) => ({ ...lease.record }));
  }
}
