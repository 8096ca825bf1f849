import { status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { Logger } from '@gw/service-kit';
import { FinishCoalescer } from '../clients/finish-coalescer';
import { QuotaClient } from '../clients/quota-client';
import { estimatedCharges, settlements, settlementRetries } from '../edge-metrics';
import { Usage } from './provider-usage';

/** What a finished request owes, and how it is paid. */
export interface FinishedRequest {
  requestId: string;
  accountId: string;
  model: string;
  payment: quotaV1.Payment;
  usage: Usage;
  usageEstimated: boolean;
}

const FIRST_RETRY_MS = 100;
// Failures that may pass: anything else is a refusal that no retry can change.
const TRANSIENT = new Set([status.UNAVAILABLE, status.DEADLINE_EXCEEDED, status.INTERNAL, status.UNKNOWN, status.RESOURCE_EXHAUSTED, status.ABORTED]);
const MAX_RETRY_MS = 5000;

/**
 * After a reply ends: one FinishRequest to quota-service (sharing a call with others finishing
 * at the same time), which frees the place, counts the tokens and queues the bill durably for
 * billing-service (settled once per request id). It is retried until it lands, off the
 * caller's path; a repeat changes nothing. Outcomes, retries and estimated charges are counted
 * in the edge's metrics.
 */
export class Settlement {
  private readonly pending = new Set<Promise<void>>();
  private readonly quota: FinishCoalescer;

  constructor(
    quota: QuotaClient,
    private readonly logger: Logger,
  ) {
    this.quota = new FinishCoalescer(quota);
  }

  /**
   * Settles a request in the background once it has finished: called once per request that took
   * a hold or a free reservation, with what it owes or the promise of it while the reply is read.
   */
  finish(done: FinishedRequest | Promise<FinishedRequest>): void {
    const work = Promise.resolve(done)
      .then((finished) => this.deliver(finished))
      .catch((err: unknown) => this.logger.error('settlement failed', { err }))
      .finally(() => this.pending.delete(work));
    this.pending.add(work);
  }

  /** Waits until every request handed over has been read to its end and settled (at shutdown). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private async deliver(done: FinishedRequest): Promise<void> {
    const request: quotaV1.FinishRequestRequest = {
      accountId: done.accountId,
      requestId: done.requestId,
      model: done.model,
      payment: done.payment,
      promptTokens: done.usage.promptTokens,
      completionTokens: done.usage.completionTokens,
      usageEstimated: done.usageEstimated,
    };
    for (let wait = FIRST_RETRY_MS; ; wait = Math.min(wait * 2, MAX_RETRY_MS)) {
      try {
        await this.quota.finish(request);
        settlements.inc({ outcome: 'ok' });
        if (done.usageEstimated) estimatedCharges.inc({ payment: done.payment === quotaV1.Payment.PAYMENT_FREE ? 'free' : 'paid' });
        return;
      } catch (err) {
        if (!TRANSIENT.has((err as { code?: number }).code ?? status.UNKNOWN)) {
          settlements.inc({ outcome: 'refused' });
          this.logger.error('finishing a request was refused, not retried', { err, ...request });
          return;
        }
        settlementRetries.inc();
        this.logger.warn('finishing a request failed, retrying', { requestId: done.requestId, err, retryInMs: wait });
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }
}
