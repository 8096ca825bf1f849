import { Logger } from '@gw/service-kit';
import { isAdmitted, LeaseRecord } from '../../store/leases/lease-store';
import { OlderRenewals } from '../request-leases';

/** billing-service as the older release's leases see it: keeps the holds of running paid requests from its sweeper (billing.v1 RenewHolds). */
export interface HoldRenewer {
  renewHolds(requestIds: string[]): Promise<void>;
}

/**
 * The holds at billing-service of the older release's running paid requests, renewed with their
 * leases on a best-effort basis: a billing-service that cannot be reached now sweeps nothing
 * either, and the next renewal comes in a few seconds.
 */
export class OlderHoldRenewals implements OlderRenewals {
  constructor(
    private readonly holds: HoldRenewer,
    private readonly logger: Logger,
  ) {}

  async renewed(leases: LeaseRecord[]): Promise<void> {
    const paid = leases.filter((lease) => lease.payment === 'paid' && !isAdmitted(lease)).map((lease) => lease.requestId);
    if (paid.length === 0) return;
    await this.holds
      .renewHolds(paid)
      .catch((err: unknown) => this.logger.warn('holds of running requests not renewed, next renewal will', { err, holds: paid.length }));
  }
}
