import { status } from '@grpc/grpc-js';
import { quotaV1 } from '@gw/contracts';
import { QuotaClient } from './quota-client';

interface Waiting {
  request: quotaV1.FinishRequestRequest;
  resolve(response: quotaV1.FinishRequestResponse): void;
  reject(err: unknown): void;
}

const MAX_AT_ONCE = 256;

/** A failed outcome as the error FinishRequest would have failed with. */
function outcomeError(outcome: quotaV1.FinishRequestOutcome | undefined): Error {
  const err = new Error(outcome?.errorMessage || 'no outcome for this request') as Error & { code: number };
  err.code = outcome ? outcome.errorCode : status.INTERNAL;
  return err;
}

/**
 * Finishes requests at quota-service with as few calls as the load allows: with no call on the
 * wire a request goes at once in a FinishRequest of its own; those finishing meanwhile go
 * together in the next FinishRequests. Light load waits for nothing; heavy load shares calls.
 * Each caller gets its own request's answer or error.
 */
export class FinishCoalescer {
  private waiting: Waiting[] = [];
  private sending = false;

  constructor(private readonly quota: QuotaClient) {}

  finish(request: quotaV1.FinishRequestRequest): Promise<quotaV1.FinishRequestResponse> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      if (!this.sending) void this.sendAll();
    });
  }

  private async sendAll(): Promise<void> {
    this.sending = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_AT_ONCE);
      if (batch.length === 1) await this.sendOne(batch[0]);
      else await this.sendMany(batch);
    }
    this.sending = false;
  }

  private sendOne(one: Waiting): Promise<void> {
    return this.quota.finishRequest(one.request).then(one.resolve, one.reject);
  }

  private async sendMany(batch: Waiting[]): Promise<void> {
    try {
      const { outcomes } = await this.quota.finishRequests(batch.map((w) => w.request));
      batch.forEach((w, i) => (outcomes[i]?.errorCode === 0 ? w.resolve(outcomes[i].finished ?? { released: false, repeated: false }) : w.reject(outcomeError(outcomes[i]))));
    } catch (err) {
      // A quota-service from before FinishRequests (during a rolling update): one call each.
      if ((err as { code?: number }).code === status.UNIMPLEMENTED) await Promise.all(batch.map((w) => this.sendOne(w)));
      else batch.forEach((w) => w.reject(err));
    }
  }
}
