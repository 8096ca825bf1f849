import { quotaV1 } from '@gw/contracts';
import { callBatch, MAX_BATCH } from '@gw/service-kit';
import { QuotaClient } from './quota-client';

interface Waiting {
  request: quotaV1.FinishRequestRequest;
  resolve(response: quotaV1.FinishRequestResponse): void;
  reject(err: unknown): void;
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
      const batch = this.waiting.splice(0, MAX_BATCH);
      if (batch.length === 1) await this.quota.finishRequest(batch[0].request).then(batch[0].resolve, batch[0].reject);
      else await this.sendMany(batch);
    }
    this.sending = false;
  }

  private async sendMany(batch: Waiting[]): Promise<void> {
    const results = await callBatch(
      batch.map((w) => w.request),
      async (requests) => (await this.quota.finishRequests(requests)).outcomes.map((o) => ({ ...o, result: o.finished })),
      (request) => this.quota.finishRequest(request),
    );
    results.forEach((r, i) => (r.ok ? batch[i].resolve(r.value) : batch[i].reject(r.err)));
  }
}
