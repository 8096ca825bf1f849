import { quotaV1 } from '@gw/contracts';
import { backoffMs, isFinalFailure, Logger } from '@gw/service-kit';
import { estimatedCharges, finishesSent, finishRetries } from '../edge-metrics';
import { LeaseKeeper } from './lease-keeper';
import { RequestFinishing } from './ports';
import { Usage } from './provider-usage';

/** What a finished request owes, and how it is paid. */
export interface FinishedRequest {
  /** The id it is held, placed and billed under (quota.v1's request_id). */
  billingId: string;
  accountId: string;
  model: string;
  payment: quotaV1.Payment;
  usage: Usage;
  usageEstimated: boolean;
  /** A request admitted by quota.v1 Admit: its hold (paid). */
  hold?: quotaV1.Hold;
  /** A request admitted by quota.v1 Admit: Admit's time of it (AdmitResponse.admitted_at_ms). */
  admittedAtMs?: number;
  /** true: admitted by Admit (its final bill is kept until applied); false: Admit's answer never arrived (whatever it took is given back). */
  admitted?: boolean;
  /** Why it ended (unset for one that never ran). */
  endReason?: quotaV1.EndReason;
}

const RETRY_BACKOFF = { firstMs: 100, maxMs: 5000 };

/**
 * After a reply ends: one FinishRequest to quota-service (on a call stream, with the other calls
 * of the moment), which frees the place, counts the tokens, ends the lease and queues the
 * bill durably for billing-service (billed once per request id). It is retried off the
 * caller's path until it lands, with the one retry policy (isFinalFailure, backoffMs); a repeat
 * changes nothing. Until it lands the request's lease is kept alive with its final bill, so
 * that an edge that dies meanwhile still has it billed; an admitted request's lease is kept
 * after that too, marked final, until its bill is applied (LeaseKeeper). Outcomes, retries and estimated
 * charges are counted in the edge's metrics.
 */
export class FinishSender {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly quota: RequestFinishing,
    private readonly leases: LeaseKeeper,
    private readonly logger: Logger,
  ) {}

  /**
   * Finishes a request in the background once it has finished: called once per request that
   * took a hold, a free reservation or a place (or may have: the call failed), with
   * what it owes or the promise of it while the reply is read.
   */
  finish(done: FinishedRequest | Promise<FinishedRequest>): void {
    const work = Promise.resolve(done)
      .then((finished) => this.deliver(finished))
      .catch((err: unknown) => this.logger.error('finishSender failed', { err }))
      .finally(() => this.pending.delete(work));
    this.pending.add(work);
  }

  /** Waits until every request handed over has been read to its end and finished (at shutdown). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private async deliver(done: FinishedRequest): Promise<void> {
    const request: quotaV1.FinishRequestRequest = {
      accountId: done.accountId,
      requestId: done.billingId,
      model: done.model,
      payment: done.payment,
      promptTokens: done.usage.promptTokens,
      completionTokens: done.usage.completionTokens,
      usageEstimated: done.usageEstimated,
      hold: done.hold,
      admitted: done.admitted,
      admittedAtMs: done.admittedAtMs,
      endReason: done.endReason,
    };
    let landed = false;
    for (let failures = 1; ; failures++) {
      try {
        await this.quota.finishRequest(request);
        landed = true;
        finishesSent.inc({ outcome: 'ok' });
        if (done.usageEstimated) estimatedCharges.inc({ payment: done.payment === quotaV1.Payment.PAYMENT_FREE ? 'free' : 'paid' });
        break;
      } catch (err) {
        if (isFinalFailure(err)) {
          finishesSent.inc({ outcome: 'dropped' });
          const { requestId: billingId, ...bill } = request;
          this.logger.error('finishing a request was refused for good, its bill dropped', { err, billingId, ...bill });
          break;
        }
        const wait = backoffMs(failures, RETRY_BACKOFF);
        finishRetries.inc();
        this.logger.warn('finishing a request failed, retrying', { billingId: done.billingId, err, retryInMs: wait });
        await new Promise((r) => setTimeout(r, wait));
      }
    }
    if (landed && done.admitted) this.leases.finished(done.billingId);
    else this.leases.forget(done.billingId);
  }
}
