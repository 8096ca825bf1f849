import { status } from '@grpc/grpc-js';
import { Logger, MAX_BATCH, requireId, RpcError } from '@gw/service-kit';
import { leaseRenewals } from '../quota-metrics';
import { LeaseRecord, LeaseStore } from '../store/lease-store';
import { requireModel, requireUsage } from './field-checks';

/** billing-service as the leases see it: keeps the holds of running paid requests from its sweeper. */
export interface HoldRenewer {
  renewHolds(requestIds: string[]): Promise<void>;
}

/** A lease whose ids, model and tokens are within their bounds (INVALID_ARGUMENT otherwise), marked estimated. */
export function requireLease(lease: LeaseRecord): LeaseRecord {
  requireId('account_id', lease.accountId);
  requireId('request_id', lease.requestId);
  requireModel(lease.model);
  requireUsage(lease.promptTokens, lease.completionTokens);
  return { ...lease, usageEstimated: true };
}

/**
 * The leases of the edge's running requests (DESIGN "One request", step 9). A lease starts with
 * the request's place and carries the bill the request would come to if it ended now; the edge
 * renews it, and with it the paid request's hold at billing-service, until FinishRequest ends
 * it. One not renewed within `ttlMs` lapses (LeaseReaper).
 */
export class RequestLeases {
  constructor(
    private readonly store: LeaseStore,
    private readonly ttlMs: number,
    private readonly holds: HoldRenewer,
    private readonly logger: Logger,
  ) {}

  /** Starts the lease of a request being given a place. */
  async start(lease: LeaseRecord): Promise<void> {
    await this.store.start(requireLease(lease), this.ttlMs);
  }

  /** Ends the lease of a request that was refused its place after all. */
  async end(requestId: string): Promise<void> {
    await this.store.end(requestId);
  }

  /**
   * Renews the leases that still exist; returns the request ids that have none. The holds of
   * the paid ones are renewed too, on a best-effort basis: a billing-service that cannot be
   * reached now sweeps nothing either, and the next renewal comes in a few seconds.
   */
  async renew(leases: LeaseRecord[]): Promise<string[]> {
    if (leases.length > MAX_BATCH) throw new RpcError(status.INVALID_ARGUMENT, `at most ${MAX_BATCH} leases in one call`);
    const checked = leases.map(requireLease);
    const unknown = await this.store.renew(checked, this.ttlMs);
    const gone = new Set(unknown);
    const paid = checked.filter((lease) => lease.payment === 'paid' && !gone.has(lease.requestId)).map((lease) => lease.requestId);
    leaseRenewals.inc({ outcome: 'renewed' }, checked.length - gone.size);
    leaseRenewals.inc({ outcome: 'unknown' }, gone.size);
    if (paid.length > 0) {
      await this.holds.renewHolds(paid).catch((err: unknown) => this.logger.warn('holds of running requests not renewed, next renewal will', { err, holds: paid.length }));
    }
    return unknown;
  }
}
