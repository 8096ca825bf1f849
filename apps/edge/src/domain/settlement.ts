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

  /** Starts settling a finished request in the background. */
  finish(done: FinishedRequest): void {
    const work = this.settle(done).finally(() => this.pending.delete(work));
    this.pending.add(work);
  }

  /** Waits until every started settlement has landed or given up (at shutdown). */
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
