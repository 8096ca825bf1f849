import { quotaV1 } from '@gw/contracts';
import { Logger, MAX_BATCH, PeriodicTask } from '@gw/service-kit';
import { finalBillsDropped, finalBillsKept, finalBillsMax, leaseRenewals } from '../edge-metrics';
import { LeaseRenewing } from './ports';

/** A running request answered unknown is kept this long for its finish to land (its final bill is then kept). */
const UNKNOWN_KEEP_MS = 10 * 60_000;

/** The first part of a reply is in its request's lease at quota-service within about this long. */
const PROGRESS_RENEW_MS = 20;

/** A running request: the keeper asks it for its lease at each renewal. */
export interface LeasedRequest {
  readonly billingId: string;
  leaseNow(): quotaV1.Lease;
}

/** A running request kept (no longer renewed once quota-service answered it unknown, at `unknownAt`). */
interface Running {
  request: LeasedRequest;
  unknownAt?: number;
}

/**
 * Keeps the leases of this edge's running requests alive (docs/architecture.md#nothing-lost-when-a-process-dies): every
 * `renewMs` all of them go to quota-service in RenewLeases calls of up to MAX_BATCH, each with
 * what its request would be billed if it ended now. A request is kept from the moment it gets
 * its place until its finish has landed; a request admitted with Admit is kept after that as its
 * final bill, for as long as it takes: until quota-service answers that it has no lease for it,
 * which it does once that bill is applied at billing-service, so that a bill quota-service's store
 * lost comes back from here however long billing-service was away
 * (docs/architecture.md#nothing-lost-when-a-process-dies, "A bill is never lost with Redis").
 * Only an unknown answered to the final bill means applied. The final bills kept are at most
 * `finalBillsMax`: one more drops the oldest, logged with all it bills and counted (the bill is
 * then in quota-service's outbox alone). A renewal that fails is logged and tried again at the
 * next tick; a running request's lease quota-service no longer knows (finished there: its finish
 * landed before the edge heard, or it lapsed) is no longer renewed, but its final bill is still
 * kept once its finish lands here.
 */
export class LeaseKeeper {
  private readonly running = new Map<string, Running>();
  /** The final bills of finished requests by billing id, oldest first, until each is answered applied. */
  private readonly finals = new Map<string, quotaV1.Lease>();
  private readonly loop: PeriodicTask;
  /** Running requests whose reply began since their last renewal, renewed within PROGRESS_RENEW_MS. */
  private readonly progressed = new Set<string>();
  private progressTimer?: NodeJS.Timeout;
  /** The renewal of replies that began, while it is on the wire (stop waits for it). */
  private progressSent?: Promise<void>;

  constructor(
    private readonly quota: LeaseRenewing,
    renewMs: number,
    private readonly logger: Logger,
    /** Final bills kept at most (EDGE_FINAL_BILLS_MAX). */
    private readonly finalBillsLimit: number,
  ) {
    finalBillsMax.set(finalBillsLimit);
    finalBillsKept.set(0);
    // renewAll logs its own failures, batch by batch.
    this.loop = new PeriodicTask(() => this.renewAll(), {
      intervalMs: renewMs,
      failed: (err) => this.logger.warn('leases not renewed, will retry', { err }),
    });
    this.loop.start();
  }

  /** Keeps renewing the lease of a request, as it gives it at each renewal. */
  keep(request: LeasedRequest): void {
    this.running.set(request.billingId, { request });
  }

  /**
   * An admitted request's finish landed: renewed from now on as its final bill, until applied.
   * The bill is taken now, so that the request's state (body, reply, sockets) is not held until then.
   */
  finished(billingId: string): void {
    const kept = this.running.get(billingId);
    if (!kept) return;
    this.running.delete(billingId);
    if (this.finals.size >= this.finalBillsLimit) this.dropOldestFinal();
    this.finals.set(billingId, { ...kept.request.leaseNow(), final: true });
    finalBillsKept.set(this.finals.size);
  }

  /** Stops renewing a request's lease: its finish landed and its bill is not one to keep (or the finish was refused for good). */
  forget(billingId: string): void {
    this.running.delete(billingId);
    if (this.finals.delete(billingId)) finalBillsKept.set(this.finals.size);
  }

  /**
   * At the bound, the oldest final bill makes room: still queued in quota-service's outbox, it is
   * lost only if Redis loses that too before billing-service applies it, and the error line holds
   * what an operator needs to charge it then.
   */
  private dropOldestFinal(): void {
    const oldest = this.finals.values().next();
    if (oldest.done) return;
    const { requestId: billingId, ...bill } = oldest.value;
    this.finals.delete(billingId);
    finalBillsDropped.inc();
    this.logger.error('final bill dropped unapplied at EDGE_FINAL_BILLS_MAX; only the outbox of quota-service has it now', {
      billingId,
      ...bill,
      finalBillsMax: this.finalBillsLimit,
    });
  }

  /**
   * The first part of a request's reply arrived (it is billed from now on, docs/api.md#billing-rules):
   * its lease is renewed soon, with the requests of the same moment, rather than at the next tick,
   * so that an edge that dies after handing the caller a reply leaves a lease that bills it.
   */
  replyBegan(billingId: string): void {
    this.progressed.add(billingId);
    this.progressTimer ??= setTimeout(() => {
      this.progressSent = this.renewProgressed().finally(() => (this.progressSent = undefined));
    }, PROGRESS_RENEW_MS).unref();
  }

  /** Renews the leases of the requests whose reply began since the last such renewal. */
  private async renewProgressed(): Promise<void> {
    this.progressTimer = undefined;
    const leases: quotaV1.Lease[] = [];
    for (const billingId of this.progressed) {
      const kept = this.running.get(billingId);
      if (kept && kept.unknownAt === undefined) leases.push(kept.request.leaseNow());
    }
    this.progressed.clear();
    await this.send(leases, Date.now());
  }

  /** Renews every lease kept now, and every final bill; one failed call does not stop the others. */
  async renewAll(): Promise<void> {
    const now = Date.now();
    const leases: quotaV1.Lease[] = [];
    for (const [billingId, kept] of this.running) {
      if (kept.unknownAt === undefined) leases.push(kept.request.leaseNow());
      else if (now - kept.unknownAt > UNKNOWN_KEEP_MS) this.running.delete(billingId);
    }
    leases.push(...this.finals.values());
    await this.send(leases, now);
  }

  /** Sends leases in batches of MAX_BATCH and takes in quota-service's answers about them. */
  private async send(leases: quotaV1.Lease[], now: number): Promise<void> {
    for (let i = 0; i < leases.length; i += MAX_BATCH) {
      const batch = leases.slice(i, i + MAX_BATCH);
      try {
        const { unknownRequestIds: unknownBillingIds } = await this.quota.renewLeases(batch);
        leaseRenewals.inc({ outcome: 'renewed' }, batch.length - unknownBillingIds.length);
        const sentFinal = new Set(batch.filter((lease) => lease.final).map((lease) => lease.requestId));
        for (const billingId of unknownBillingIds) {
          const kept = this.running.get(billingId);
          if (sentFinal.has(billingId)) {
            // Its bill is applied: nothing more to keep.
            leaseRenewals.inc({ outcome: 'applied' });
            this.forget(billingId);
          } else if (!this.finals.has(billingId) && kept?.unknownAt === undefined) {
            // The answer is about the running lease, not the bill: the finish that ended the lease
            // may still be on its way here, and its bill must then be kept (it may wait in the
            // outbox and be lost with Redis). A finish that landed while this renewal was on the
            // wire has its final bill renewed from the next tick.
            leaseRenewals.inc({ outcome: 'unknown' });
            this.logger.warn('lease unknown to quota-service, no longer renewed', { billingId });
            if (kept) kept.unknownAt = now;
          }
        }
      } catch (err) {
        leaseRenewals.inc({ outcome: 'failed' }, batch.length);
        this.logger.warn('leases not renewed, will retry', { err, leases: batch.length });
      }
    }
  }

  /**
   * Stops the timers (at shutdown, once every request has finished) and waits for the renewals on
   * the wire. The final bills still kept are let go with the process: saying how many tells an
   * operator what rests on quota-service's outbox alone.
   */
  async stop(): Promise<void> {
    clearTimeout(this.progressTimer);
    this.progressTimer = undefined;
    await Promise.all([this.loop.stop(), this.progressSent]);
    if (this.finals.size > 0)
      this.logger.warn('final bills not yet seen applied are let go at stop; the outbox of quota-service has them', {
        finalBills: this.finals.size,
      });
  }
}
