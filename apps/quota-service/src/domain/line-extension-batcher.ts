import { ItemResult, MAX_BATCH } from '@gw/service-kit';
import { currentTraceCarrier, inLinkedSpan, TraceCarrier } from '@gw/telemetry';
import { lineExtensionBatchSize } from '../quota-metrics';
import { BatchLender, CreditLender, LineAsk, LineExtension } from './credit-lender';

/** An extension waiting for its call: what it asks, the trace of the Admit that asked, and its answer's ends. */
interface Waiter {
  ask: LineAsk;
  carrier: TraceCarrier;
  resolve: (line: LineExtension) => void;
  reject: (err: unknown) => void;
}

/**
 * Credit line extensions coalesced, as Palantir AtlasDB's timestamp client batches its requests:
 * an extension asked while no call is on the wire goes at once, alone; those asked while one is
 * wait for it to end and then go together (billing.v1 ExtendCreditLines, up to `maxBatch` lines a
 * call, several calls at once when more wait). So at low load each waits for no one, and under a
 * burst (the first paid requests of many accounts, or of every account after a deploy) billing-
 * service sees a few calls and transactions rather than one per account. Each asker gets exactly
 * its own answer, or its own error: a line billing-service refused, or the failure of its call.
 */
export class LineExtensionBatcher implements CreditLender {
  private waiting: Waiter[] = [];
  private sending = false;

  constructor(
    private readonly billing: BatchLender,
    private readonly maxBatch = MAX_BATCH,
  ) {}

  extend(ask: LineAsk): Promise<LineExtension> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ask, carrier: currentTraceCarrier(), resolve, reject });
      if (!this.sending) void this.sendWhileWaiting();
    });
  }

  /**
   * Sends what waits, round after round, until nothing does. The first round holds only the
   * extension that started it and runs in its Admit's trace; a later round's calls each get a trace
   * of their own, linked to the Admit of each line.
   */
  private async sendWhileWaiting(): Promise<void> {
    this.sending = true;
    for (let first = true; this.waiting.length > 0; first = false) {
      const round = this.waiting;
      this.waiting = [];
      const calls: Promise<void>[] = [];
      for (let i = 0; i < round.length; i += this.maxBatch) {
        const batch = round.slice(i, i + this.maxBatch);
        const send = () => this.send(batch);
        calls.push(
          first
            ? send()
            : inLinkedSpan(
                'credit line extensions',
                { 'gateway.lines': batch.length },
                batch.map((w) => w.carrier),
                send,
              ),
        );
      }
      await Promise.all(calls);
    }
    this.sending = false;
  }

  /** One call: each waiter gets its own line or error; a call that fails fails every one of them. */
  private async send(batch: Waiter[]): Promise<void> {
    lineExtensionBatchSize.observe(batch.length);
    let results: ItemResult<LineExtension>[];
    try {
      results = await this.billing.extendMany(batch.map((w) => w.ask));
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const result = results[i];
      if (result?.ok) w.resolve(result.value);
      else w.reject(result ? result.err : new Error('billing-service answered no outcome for this line'));
    });
  }
}
