import { requireId } from '@gw/service-kit';
import { FreeTierStore } from '../store/free-tier-store';
import { LeaseStore } from '../store/lease-store';
import { FinishedRequest, LimitStore } from '../store/limit-store';
import { SettleOutbox, SettleRecord } from '../store/settle-outbox';
import { requireModel, requireUsage } from './field-checks';

/**
 * The end of one API request (quota.v1 FinishRequest). Each step is idempotent per request id,
 * so a retry of the whole call after any failure completes it without doing anything twice:
 *   1. the bill goes into the durable outbox first, so that once the call succeeds (or any
 *      later step fails and the caller retries) the charge cannot be lost; a repeat queues the
 *      same bill again, which billing-service applies once;
 *   2. the place is freed and the tokens counted, once per request id (LimitStore);
 *   3. a free request's reservation is settled with the real tokens (FreeTierStore);
 *   4. its lease ends (LeaseStore), last, so that a request whose edge died before it got this
 *      far is finished by the lease's lapse.
 * A request with no tokens is not billed: a free one queues nothing, a paid one queues a
 * release of its hold.
 */
export class RequestFinisher {
  constructor(
    private readonly limits: LimitStore,
    private readonly freeTier: FreeTierStore,
    private readonly outbox: SettleOutbox,
    private readonly leases: LeaseStore,
  ) {}

  /** Finishes the request; see the class comment. */
  async finish(record: SettleRecord): Promise<FinishedRequest> {
    requireId('account_id', record.accountId);
    requireId('request_id', record.requestId);
    requireModel(record.model);
    const tokens = requireUsage(record.promptTokens, record.completionTokens);
    if (record.payment === 'paid' || tokens > 0) await this.outbox.append(record);
    const finished = await this.limits.finishRequest(record.accountId, record.requestId, tokens);
    if (record.payment === 'free') await this.freeTier.settle(record.accountId, record.requestId, tokens);
    await this.leases.end(record.requestId);
    return finished;
  }
}
