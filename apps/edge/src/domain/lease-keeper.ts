import { quotaV1 } from '@gw/contracts';
import { Logger, MAX_BATCH, PeriodicTask } from '@gw/service-kit';
import { QuotaClient } from '../clients/quota-client';
import { leaseRenewals } from '../edge-metrics';

/** A request whose finish landed is renewed as its final bill at most this long. */
const FINAL_KEEP_MS = 10 * 60_000;

/**
 * A running request's lease as it stands now (no longer renewed once quota-service answered it
 * unknown, at `unknownAt`), or a finished one's final bill (its request's state let go).
 */
type Kept =
  | { leaseNow: () => quotaV1.Lease; finishedAt?: undefined; unknownAt?: number }
  | { final: quotaV1.Lease; finishedAt: number; unknownAt?: undefined };

/**
 * Keeps the leases of this edge's running requests alive (docs/architecture.md#nothing-lost-when-a-process-dies): every
 * `renewMs` all of them go to quota-service in RenewLeases calls of up to MAX_BATCH, each with
 * what its request would be billed if it ended now. A request is kept from the moment it gets
 * its place until its finish has landed; a request admitted with Admit is kept after that as its
 * final bill (`final`), until quota-service answers that it has no lease for it, which it does
 * once that bill is applied at billing-service: a bill quota-service's store lost comes back from
 * here (admission.md amendment 2). Only an unknown answered to the final bill means applied. A
 * renewal that fails is logged and tried again at the next tick; a running request's lease
 * quota-service no longer knows (finished there: its finish landed before the edge heard, or it
 * lapsed) is no longer renewed, but its final bill is still kept once its finish lands here.
 */
export class LeaseKeeper {
  private readonly running = new Map<string, Kept>();
  private readonly loop: PeriodicTask;

  constructor(
    private readonly quota: QuotaClient,
    renewMs: number,
    private readonly logger: Logger,
  ) {
    // renewAll logs its own failures, batch by batch.
    this.loop = new PeriodicTask(() => this.renewAll(), {
      intervalMs: renewMs,
      failed: (err) => this.logger.warn('leases not renewed, will retry', { err }),
    });
    this.loop.start();
  }

  /** Keeps renewing the lease of a request, as `leaseNow` gives it at each renewal. */
  keep(requestId: string, leaseNow: () => quotaV1.Lease): void {
    this.running.set(requestId, { leaseNow });
  }

  /**
   * An admitted request's finish landed: renewed from now on as its final bill, until applied.
   * The bill is taken now, so that the request's state (body, reply, sockets) is not held until then.
   */
  finished(requestId: string): void {
    const kept = this.running.get(requestId);
    if (kept && kept.finishedAt === undefined)
      this.running.set(requestId, { final: { ...kept.leaseNow(), final: true }, finishedAt: Date.now() });
  }

  /** Stops renewing a request's lease: its finish landed on the older path (or was refused for good). */
  forget(requestId: string): void {
    this.running.delete(requestId);
  }

  /** Renews every lease kept now; one failed call does not stop the others. */
  async renewAll(): Promise<void> {
    const now = Date.now();
    const leases: quotaV1.Lease[] = [];
    for (const [requestId, kept] of this.running) {
      const since = kept.finishedAt ?? kept.unknownAt;
      if (since !== undefined && now - since > FINAL_KEEP_MS) this.forget(requestId);
      else if (kept.finishedAt !== undefined) leases.push(kept.final);
      else if (kept.unknownAt === undefined) leases.push(kept.leaseNow());
    }
    for (let i = 0; i < leases.length; i += MAX_BATCH) {
      const batch = leases.slice(i, i + MAX_BATCH);
      try {
        const { unknownRequestIds } = await this.quota.renewLeases(batch);
        leaseRenewals.inc({ outcome: 'renewed' }, batch.length - unknownRequestIds.length);
        const sentFinal = new Set(batch.filter((lease) => lease.final).map((lease) => lease.requestId));
        for (const requestId of unknownRequestIds) {
          const kept = this.running.get(requestId);
          if (sentFinal.has(requestId)) {
            // Its bill is applied: nothing more to keep.
            leaseRenewals.inc({ outcome: 'applied' });
            this.forget(requestId);
          } else if (kept?.finishedAt === undefined && kept?.unknownAt === undefined) {
            // The answer is about the running lease, not the bill: the finish that ended the lease
            // may still be on its way here, and its bill must then be kept (it may wait in the
            // outbox and be lost with Redis). A finish that landed while this renewal was on the
            // wire has its final bill renewed from the next tick.
            leaseRenewals.inc({ outcome: 'unknown' });
            this.logger.warn('lease unknown to quota-service, no longer renewed', { billingId: requestId });
            if (kept) kept.unknownAt = now;
          }
        }
      } catch (err) {
        leaseRenewals.inc({ outcome: 'failed' }, batch.length);
        this.logger.warn('leases not renewed, will retry', { err, leases: batch.length });
      }
    }
  }

  /** Stops the timer (at shutdown, once every request has settled) and waits for a renewal on the wire. */
  stop(): Promise<void> {
    return this.loop.stop();
  }
}
