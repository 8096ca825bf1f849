import { ClientDuplexStream, status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { Backoff, backoffMs, Logger } from '@gw/service-kit';
import { PriceBook } from '../domain/price-book';
import { priceWatchUp } from '../quota-metrics';

type WatchStream = ClientDuplexStream<billingV1.WatchPricesRequest, billingV1.WatchPricesResponse>;

/** Where the watch's stream comes from (BillingClient). */
export interface PriceSource {
  watchPrices(): WatchStream;
}

const RETRY: Backoff = { firstMs: 100, maxMs: 1000 };

/**
 * Holds billing.v1 WatchPrices open and keeps the PriceBook coherent with it: each message is
 * applied, then its version acknowledged on the stream (billing's SetPrice waits for that). When
 * the stream ends or fails the book drops its table (paid admissions answer UNAVAILABLE; an older
 * billing-service that does not serve the watch makes them UNIMPLEMENTED, so that the edge takes
 * the older calls) and a new stream is opened after a backoff, or at once when the book wants a
 * table; its first message is the whole table again. A change that arrives before any table is a
 * broken stream: it is cut and opened again.
 */
export class PriceWatch {
  private stream: WatchStream | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = true;

  constructor(
    private readonly source: PriceSource,
    private readonly book: PriceBook,
    private readonly logger: Logger,
    private readonly retry: Backoff = RETRY,
  ) {
    book.onWanted = () => this.reopenNow();
  }

  start(): void {
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.stream?.cancel();
    this.stream = undefined;
    this.book.drop();
    priceWatchUp.set(0);
  }

  private open(): void {
    const stream = this.source.watchPrices();
    this.stream = stream;
    const lost = (reason: string, unsupported?: boolean) => {
      if (this.stream !== stream) return;
      this.stream = undefined;
      stream.cancel();
      this.lost(reason, unsupported);
    };
    stream.on('data', (update: billingV1.WatchPricesResponse) => {
      if (this.stream !== stream) return;
      const prices = update.prices.map((p) => ({ model: p.model, inputMicroPerMillion: p.inputMicroLydPerMillion, outputMicroPerMillion: p.outputMicroLydPerMillion }));
      if (!this.book.apply({ version: update.version, full: update.full, prices })) return lost('a change of prices came before the whole table');
      stream.write({ version: update.version });
      if (this.failures > 0) this.logger.info('price watch back', { version: update.version });
      this.failures = 0;
      priceWatchUp.set(1);
    });
    stream.on('error', (err: Error & { code?: number }) => lost(err.message, err.code === status.UNIMPLEMENTED));
    stream.on('end', () => lost('price watch ended'));
  }

  /** Opens a stream now when waiting to: a paid admission wants prices. */
  private reopenNow(): void {
    if (this.stopped || this.stream || !this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.open();
  }

  private lost(reason: string, unsupported = false): void {
    this.book.drop(unsupported ? 'unsupported' : 'down');
    priceWatchUp.set(0);
    if (this.stopped) return;
    this.failures++;
    // Said once per outage: billing-service may be down (or older) for a while.
    if (this.failures === 1) this.logger.warn('price watch lost: paid admissions refused until it is back', { reason });
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.open();
    }, backoffMs(this.failures, this.retry));
    this.timer.unref();
  }
}
