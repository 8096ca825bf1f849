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
 * A stream is handed over to a new one this long after it opened: well inside billing-service's
 * maximum connection age (60 s) plus its grace (30 s), so that no stream is cut under the book.
 */
const ROTATE_MS = 20_000;

/**
 * Holds billing.v1 WatchPrices open and keeps the PriceBook coherent with it: each message is
 * applied, then its version acknowledged on the stream (billing's SetPrice waits for that). When
 * the stream ends or fails the book drops its table (paid admissions answer UNAVAILABLE; an older
 * billing-service that does not serve the watch makes them UNIMPLEMENTED, so that the edge takes
 * the older calls) and a new stream is opened after a backoff, or at once when the book wants a
 * table; its first message is the whole table again. A change that arrives before any table is a
 * broken stream: it is cut and opened again.
 *
 * Every ROTATE_MS the watch moves to a new stream (the candidate) without dropping the table: the
 * old stream's messages are applied until the candidate's whole table is, then the old stream is
 * cut. Both are acknowledged while both are open, and billing's SetPrice waits for every open
 * stream, so a change is in force here when it returns whichever stream brought it. A candidate
 * that fails is given up; the next rotation tries again.
 */
export class PriceWatch {
  private stream: WatchStream | undefined;
  private candidate: WatchStream | undefined;
  private timer: NodeJS.Timeout | undefined;
  private rotateTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = true;

  constructor(
    private readonly source: PriceSource,
    private readonly book: PriceBook,
    private readonly logger: Logger,
    private readonly retry: Backoff = RETRY,
    private readonly rotateMs = ROTATE_MS,
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
    clearTimeout(this.rotateTimer);
    this.stream?.cancel();
    this.candidate?.cancel();
    this.stream = this.candidate = undefined;
    this.book.drop();
    priceWatchUp.set(0);
  }

  private open(): void {
    this.stream = this.watch();
    this.scheduleRotation();
  }

  /** Opens a stream whose messages go to the book while it is the stream followed or the candidate. */
  private watch(): WatchStream {
    const stream = this.source.watchPrices();
    const followed = () => stream === this.stream || stream === this.candidate;
    const lost = (reason: string, unsupported?: boolean) => {
      if (!followed()) return;
      stream.cancel();
      if (stream === this.candidate) {
        this.candidate = undefined;
        this.scheduleRotation();
        return;
      }
      this.stream = undefined;
      this.candidate?.cancel();
      this.candidate = undefined;
      clearTimeout(this.rotateTimer);
      this.lost(reason, unsupported);
    };
    let first = true;
    stream.on('data', (update: billingV1.WatchPricesResponse) => {
      if (!followed()) return;
      const prices = update.prices.map((p) => ({
        model: p.model,
        inputMicroPerMillion: p.inputMicroLydPerMillion,
        outputMicroPerMillion: p.outputMicroLydPerMillion,
      }));
      // A candidate's first message must be its whole table: a change before it is a broken stream.
      const applies =
        stream === this.candidate && first && !update.full
          ? false
          : this.book.apply({ version: update.version, full: update.full, prices });
      if (!applies) return lost('a change of prices came before the whole table');
      first = false;
      stream.write({ version: update.version });
      if (stream === this.candidate) this.handOver(stream);
      if (this.failures > 0) this.logger.info('price watch back', { version: update.version });
      this.failures = 0;
      priceWatchUp.set(1);
    });
    stream.on('error', (err: Error & { code?: number }) => lost(err.message, err.code === status.UNIMPLEMENTED));
    stream.on('end', () => lost('price watch ended'));
    return stream;
  }

  private scheduleRotation(): void {
    clearTimeout(this.rotateTimer);
    this.rotateTimer = setTimeout(() => {
      if (!this.stopped && this.stream && !this.candidate) this.candidate = this.watch();
    }, this.rotateMs);
    this.rotateTimer.unref();
  }

  /** The candidate's whole table is applied: it is the stream followed from now on. */
  private handOver(candidate: WatchStream): void {
    this.stream?.cancel();
    this.stream = candidate;
    this.candidate = undefined;
    this.scheduleRotation();
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
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.open();
      },
      backoffMs(this.failures, this.retry),
    );
    this.timer.unref();
  }
}
