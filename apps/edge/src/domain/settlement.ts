import { Logger } from '@gw/service-kit';
import { BillingClient } from '../clients/billing-client';
import { QuotaClient } from '../clients/quota-client';
import { Usage } from './provider-usage';

/** What a finished request owes and holds. */
export interface FinishedRequest {
  requestId: string;
  accountId: string;
  usage: Usage;
  usageEstimated: boolean;
}

const RETRY_DELAYS_MS = [100, 500, 2000, 5000];

/**
 * After a reply ends: bill it once (billing settles by request id, so a retry never doubles),
 * then give the place back and add the tokens to the usage counters. Runs off the caller's path.
 */
export class Settlement {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly billing: BillingClient,
    private readonly quota: QuotaClient,
    private readonly logger: Logger,
  ) {}

  /**
   * Settles a request in the background once it has finished: called once per request that got
   * a place, with what it owes or with the promise of it while the provider's reply is still being read.
   */
  finish(done: FinishedRequest | Promise<FinishedRequest>): void {
    const work = Promise.resolve(done)
      .then((finished) => this.settle(finished))
      .catch((err: unknown) => this.logger.error('settlement failed', { err }))
      .finally(() => this.pending.delete(work));
    this.pending.add(work);
  }

  /** Waits until every request handed over has been read to its end and settled, or given up (at shutdown). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private async settle(done: FinishedRequest): Promise<void> {
    const log = this.logger.child({ requestId: done.requestId });
    await this.retry('settle', log, () =>
      this.billing.settle({
        requestId: done.requestId,
        promptTokens: done.usage.promptTokens,
        completionTokens: done.usage.completionTokens,
        usageEstimated: done.usageEstimated,
      }),
    );
    await this.retry('release place', log, () =>
      this.quota.releasePlace({
        accountId: done.accountId,
        requestId: done.requestId,
        promptTokens: done.usage.promptTokens,
        completionTokens: done.usage.completionTokens,
      }),
    );
  }

  private async retry(what: string, log: Logger, call: () => Promise<unknown>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await call();
        return;
      } catch (err) {
        if (attempt >= RETRY_DELAYS_MS.length) {
          log.error(`${what} failed for good`, { err });
          return;
        }
        log.warn(`${what} failed, retrying`, { err, attempt });
        await new Promise((r) => setTimeout(r, RETRY_DELAYS_MS[attempt]));
      }
    }
  }
}
