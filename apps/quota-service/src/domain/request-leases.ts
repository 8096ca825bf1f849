import { MAX_COMPLETION_TOKENS } from '@gw/bounds';
import { Logger, MAX_BATCH, requireCount, requireId } from '@gw/service-kit';
import { leaseRenewals } from '../quota-metrics';
import { AdmissionStore } from '../store/admission/admission-store';
import { isAdmitted, LeaseRecord, LeaseRef, LeaseStore } from '../store/leases/lease-store';
import { requireHold, requireModel, requireUsage } from './field-checks';
import { finishStepOf } from './request-finisher';
import { DomainError } from '@gw/errors';

/** What a renewal also does for the leases of the older release's path (legacy/older-hold-renewals.ts), while it is served. */
export interface OlderRenewals {
  /** Told the running leases just renewed (those the store still had); never throws. */
  renewed(leases: LeaseRecord[]): Promise<void>;
}

/**
 * A lease whose ids, model, tokens, hold and max_tokens are within their bounds (INVALID_ARGUMENT
 * otherwise), marked estimated. A hold is a paid request's only.
 */
export function requireLease(lease: LeaseRecord): LeaseRecord {
  requireId('account_id', lease.accountId);
  requireId('request_id', lease.requestId);
  requireModel(lease.model);
  requireUsage(lease.promptTokens, lease.completionTokens);
  if (lease.hold !== undefined) {
    requireHold(lease.hold);
    if (lease.payment !== 'paid') throw new DomainError('invalid-argument', 'only a paid request has a hold');
  }
  if (lease.maxTokens !== undefined) requireCount('max_tokens', lease.maxTokens, MAX_COMPLETION_TOKENS, 1);
  return { ...lease, usageEstimated: true };
}

/**
 * The leases of the edge's running requests (docs/architecture.md#nothing-lost-when-a-process-dies). A lease starts with
 * the request's place (or its admission) and carries the bill the request would come to if it
 * ended now; the edge renews it until FinishRequest ends it (an older paid request's hold at
 * billing-service is renewed with it by `older`). One not renewed within `ttlMs` lapses (LeaseReaper). The lease of
 * a paid request admitted by Admit that the store lost (unknown, and its id not finished) is
 * recreated from the renewal, so that the request is still billed should its edge die.
 */
export class RequestLeases {
  constructor(
    private readonly store: LeaseStore,
    private readonly admission: AdmissionStore,
    private readonly ttlMs: number,
    private readonly logger: Logger,
    private readonly older?: OlderRenewals,
  ) {}

  /** Starts the lease of a request being given a place. */
  async start(lease: LeaseRecord): Promise<void> {
    await this.store.start(requireLease(lease), this.ttlMs);
  }

  /** Ends the lease of a request that was refused its place after all. */
  async end(lease: LeaseRef): Promise<void> {
    await this.store.end(lease);
  }

  /**
   * Renews the leases that still exist, and recreates those of admitted paid requests the store
   * lost; returns the request ids that have none.
   */
  async renew(leases: LeaseRecord[]): Promise<string[]> {
    if (leases.length > MAX_BATCH) throw new DomainError('invalid-argument', `at most ${MAX_BATCH} leases in one call`);
    const all = leases.map(requireLease);
    const finals = all.filter((lease) => lease.final);
    const [unknown, finalUnknown] = await Promise.all([this.renewRunning(all.filter((lease) => !lease.final)), this.keepFinals(finals)]);
    return [...unknown, ...finalUnknown];
  }

  /**
   * The final bills of admitted requests whose finish landed (docs/architecture.md#nothing-lost-when-a-process-dies): an id is
   * answered unknown once its bill is applied at billing-service, or it had none; while the bill
   * waits in the outbox it is kept. When the store has no trace of the finish (Redis restarted
   * empty, or failed over, or lost its last second), the request is finished again from this
   * renewal, admitted, with its hold, usage and payment, so that its bill is queued again
   * (billing-service applies each request id once): kept until that bill is applied. Its usage is
   * the one its FinishRequest had, the last word on the request: billed as not estimated, so that
   * it also replaces a lapse estimate billing-service may hold, never a bill of its own. A final
   * lease of a request not admitted by Admit (neither hold nor max_tokens) is unknown at once.
   */
  private async keepFinals(finals: LeaseRecord[]): Promise<string[]> {
    if (finals.length === 0) return [];
    const admitted = finals.filter((lease) => lease.hold !== undefined || lease.maxTokens !== undefined);
    const known = await this.admission.billStates(admitted);
    const stateOf = new Map(admitted.map((lease, i) => [lease, known[i]]));
    const states = finals.map((lease) => stateOf.get(lease) ?? 'applied');
    const lost = finals.filter((_, i) => states[i] === 'unfinished');
    await Promise.all(lost.map((lease) => this.admission.finish(finishStepOf({ ...lease, usageEstimated: false, admitted: true }))));
    for (const lease of lost)
      this.logger.warn('finished request unknown to the store, finished again from its final lease', {
        billingId: lease.requestId,
        accountId: lease.accountId,
      });
    const applied = finals.filter((_, i) => states[i] === 'applied').map((lease) => lease.requestId);
    leaseRenewals.inc({ outcome: 'final_applied' }, applied.length);
    leaseRenewals.inc({ outcome: 'final_pending' }, states.filter((state) => state === 'pending').length);
    leaseRenewals.inc({ outcome: 'final_refinished' }, lost.length);
    return applied;
  }

  /** Renews running requests' leases: see renew. */
  private async renewRunning(checked: LeaseRecord[]): Promise<string[]> {
    if (checked.length === 0) return [];
    const gone = new Set(await this.store.renew(checked, this.ttlMs));
    const lost = checked.filter((lease) => gone.has(lease.requestId) && isAdmitted(lease));
    const outcomes = await Promise.all(lost.map((lease) => this.admission.resurrect(lease, this.ttlMs)));
    lost.forEach((lease, i) => {
      if (outcomes[i] === 'finished') return;
      gone.delete(lease.requestId);
      if (outcomes[i] === 'resurrected')
        this.logger.warn('lease unknown to the store, recreated from its renewal', {
          billingId: lease.requestId,
          accountId: lease.accountId,
        });
    });
    const unknown = [...gone];
    const resurrected = outcomes.filter((o) => o === 'resurrected').length;
    leaseRenewals.inc({ outcome: 'renewed' }, checked.length - gone.size - resurrected);
    leaseRenewals.inc({ outcome: 'resurrected' }, resurrected);
    leaseRenewals.inc({ outcome: 'unknown' }, gone.size);
    await this.older?.renewed(checked.filter((lease) => !gone.has(lease.requestId)));
    return unknown;
  }
}
