import { LapseHold, LeaseRecord, LeaseRef, LeaseStore } from './lease-store';

/**
 * A LeaseStore in this process's memory, for development (no REDIS_URL): one replica only. Its
 * synchronous steps (has, put, remove) are for InMemoryAdmissionStore's atomic admissions.
 */
export class InMemoryLeaseStore implements LeaseStore {
  private readonly leases = new Map<string, { record: LeaseRecord; lapsesAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async start(lease: LeaseRecord, ttlMs: number): Promise<void> {
    this.put(lease, ttlMs, this.now());
  }

  async renew(leases: LeaseRecord[], ttlMs: number): Promise<string[]> {
    const unknown: string[] = [];
    const now = this.now();
    for (const lease of leases) {
      if (this.has(lease.requestId)) this.put(lease, ttlMs, now);
      else unknown.push(lease.requestId);
    }
    return unknown;
  }

  async end(lease: LeaseRef): Promise<void> {
    this.remove(lease.requestId);
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

  /** Whether the request has a lease. */
  async holdLapsed(lease: LeaseRecord, graceMs: number): Promise<LapseHold> {
    const stored = this.leases.get(lease.requestId);
    if (!stored) return 'gone';
    if (JSON.stringify(stored.record) !== JSON.stringify(lease)) return 'renewed';
    const now = this.now();
    this.leases.set(lease.requestId, { record: { ...lease, lapsedAtMs: now }, lapsesAt: now + graceMs });
    return 'held';
  }

  /** The last renewal of a request's lease, if it has one. */
  get(requestId: string): LeaseRecord | undefined {
    return this.leases.get(requestId)?.record;
  }

  has(requestId: string): boolean {
    return this.leases.has(requestId);
  }

  /** Starts or replaces a lease, lapsing `ttlMs` after `now`. */
  put(lease: LeaseRecord, ttlMs: number, now: number): void {
    this.leases.set(lease.requestId, { record: { ...lease }, lapsesAt: now + ttlMs });
  }

  /** Ends a lease, if any. */
  remove(requestId: string): void {
    this.leases.delete(requestId);
  }
}
