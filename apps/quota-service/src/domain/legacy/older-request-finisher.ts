import { requireId } from '@gw/service-kit';
import { LeaseRecord } from '../../store/leases/lease-store';
import { FinishedRequest } from '../../store/limits/limit-store';
import { OlderOutboxBill } from '../../store/outbox/bill-outbox';
import { requireModel, requireUsage } from '../field-checks';
import { FinisherStores, OlderLapses } from '../request-finisher';

/**
 * The end of a request of the older release's path (a FinishRequest without `admitted`: its hold
 * is at billing-service, its place and free reservation were taken by separate calls). Each step
 * is idempotent per request id, so that a retry after any failure completes it without doing
 * anything twice:
 *   1. the bill goes into the durable outbox first, so that once the call succeeds (or any
 *      later step fails and the caller retries) the charge cannot be lost; a repeat queues the
 *      same bill again, which billing-service applies once;
 *   2. the place is freed and the tokens counted, once per request id (LimitStore);
 *   3. a free request's reservation is settled with the real tokens (FreeTierStore);
 *   4. its lease ends (LeaseStore), last, so that a request whose edge died before it got this
 *      far is finished by the lease's lapse.
 * A request with no tokens is not billed: a free one queues nothing, a paid one queues a
 * release of its hold. A lapsed lease of this path is finished the same way, at the lapse.
 */
export class OlderRequestFinisher implements OlderLapses {
  constructor(private readonly stores: FinisherStores) {}

  /** Finishes an older request; see the class comment. */
  async finish(record: OlderOutboxBill): Promise<FinishedRequest> {
    const { limits, freeTier, outbox, leases } = this.stores;
    requireId('account_id', record.accountId);
    requireId('request_id', record.requestId);
    requireModel(record.model);
    const tokens = requireUsage(record.promptTokens, record.completionTokens);
    if (record.payment === 'paid' || tokens > 0) await outbox.append(record);
    const finished = await limits.finishRequest(record.accountId, record.requestId, tokens);
    if (record.payment === 'free') await freeTier.settle(record.accountId, record.requestId, tokens);
    await leases.end(record);
    return finished;
  }

  finishLapsed(lease: LeaseRecord): Promise<FinishedRequest> {
    return this.finish(lease);
  }
}
