import { EventEmitter } from 'node:events';
import { ClientDuplexStream, status } from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';
import { createLogger } from '@gw/service-kit';
import { eventually } from '@gw/testing';
import { PriceBook } from '../domain/price-book';
import { PriceWatch } from './price-watch';

/** One WatchPrices stream as the test drives it: what the watch writes, and whether it was cancelled. */
class FakeStream extends EventEmitter {
  acks: number[] = [];
  cancelled = false;
  write(request: billingV1.WatchPricesRequest): boolean {
    this.acks.push(request.version);
    return true;
  }
  cancel(): void {
    this.cancelled = true;
  }
  send(version: number, full: boolean, prices: billingV1.Price[]): void {
    this.emit('data', { version, full, prices });
  }
}

const flash = (output: number): billingV1.Price => ({
  model: 'vendor-v4-flash',
  inputMicroLydPerMillion: 1,
  outputMicroLydPerMillion: output,
});
const until = (done: () => boolean) => eventually(done, { timeoutMs: 2000, intervalMs: 5 });

describe('PriceWatch', () => {
  let streams: FakeStream[];
  let book: PriceBook;
  let watch: PriceWatch;
  let retryIn: (firstMs: number) => void;
  let rotatingEvery: (rotateMs: number) => void;

  beforeEach(() => {
    streams = [];
    book = new PriceBook();
    const source = {
      watchPrices: () =>
        streams[streams.push(new FakeStream()) - 1] as unknown as ClientDuplexStream<
          billingV1.WatchPricesRequest,
          billingV1.WatchPricesResponse
        >,
    };
    watch = new PriceWatch(
      source,
      book,
      createLogger('quota-service-test', 'error', () => undefined),
      { firstMs: 10, maxMs: 20 },
    );
    retryIn = (firstMs) => {
      watch.stop();
      watch = new PriceWatch(
        source,
        book,
        createLogger('quota-service-test', 'error', () => undefined),
        { firstMs, maxMs: firstMs },
      );
      watch.start();
    };
    rotatingEvery = (rotateMs) => {
      watch.stop();
      streams.length = 0;
      watch = new PriceWatch(
        source,
        book,
        createLogger('quota-service-test', 'error', () => undefined),
        { firstMs: 10, maxMs: 20 },
        rotateMs,
      );
      watch.start();
    };
    watch.start();
  });
  afterEach(() => watch.stop());

  it('moves to a new stream every rotateMs without dropping the table: both are applied and acknowledged until the new one has sent its whole table, then the old one is cut', async () => {
    rotatingEvery(30);
    streams[0].send(1, true, [flash(4)]);
    await until(() => streams.length === 2);
    expect(streams.length).toBe(2);
    streams[0].send(2, false, [flash(5)]);
    expect(book.priceOf('vendor-v4-flash').outputMicroPerMillion).toBe(5);
    expect(streams[0].cancelled).toBe(false);
    streams[1].send(2, true, [flash(5)]);
    expect(streams[0].cancelled).toBe(true);
    expect([streams[0].acks, streams[1].acks]).toEqual([[1, 2], [2]]);
    streams[0].send(3, false, [flash(99)]);
    streams[1].send(3, false, [flash(6)]);
    expect(book.priceOf('vendor-v4-flash').outputMicroPerMillion).toBe(6);
    expect(book.version).toBe(3);
    await until(() => streams.length === 3);
    expect(streams.length).toBe(3);
  });

  it('gives up a new stream that fails or whose first message is a change, keeping the table and the stream it follows', async () => {
    rotatingEvery(30);
    streams[0].send(1, true, [flash(4)]);
    await until(() => streams.length === 2);
    streams[1].emit('error', new Error('14 UNAVAILABLE'));
    expect(book.version).toBe(1);
    await until(() => streams.length === 3);
    streams[2].send(2, false, [flash(7)]);
    expect(streams[2].cancelled).toBe(true);
    expect(streams[2].acks).toEqual([]);
    expect([book.version, streams[0].cancelled]).toEqual([1, false]);
    streams[0].send(2, false, [flash(7)]);
    expect(book.priceOf('vendor-v4-flash').outputMicroPerMillion).toBe(7);
  });

  it('applies each message, then acknowledges its version', () => {
    streams[0].send(1, true, [flash(4)]);
    streams[0].send(2, false, [flash(8)]);
    expect(streams[0].acks).toEqual([1, 2]);
    expect(book.priceOf('vendor-v4-flash')).toEqual({ inputMicroPerMillion: 1, outputMicroPerMillion: 8 });
  });

  it('drops the table when the stream fails, and takes a whole one from a new stream', async () => {
    streams[0].send(1, true, [flash(4)]);
    streams[0].emit('error', new Error('14 UNAVAILABLE'));
    expect(book.version).toBeUndefined();
    await until(() => streams.length === 2);
    streams[1].send(7, true, [flash(5)]);
    expect(book.priceOf('vendor-v4-flash')).toEqual({ inputMicroPerMillion: 1, outputMicroPerMillion: 5 });
    expect(streams[1].acks).toEqual([7]);
  });

  it('cuts a stream whose first message is a change, unacknowledged, and opens another', async () => {
    streams[0].send(2, false, [flash(8)]);
    expect(streams[0]).toMatchObject({ cancelled: true, acks: [] });
    await until(() => streams.length === 2);
    expect(streams).toHaveLength(2);
  });

  it('reopens at once when a table is wanted, rather than after its backoff', async () => {
    retryIn(60_000);
    streams[streams.length - 1].emit('error', new Error('14 UNAVAILABLE'));
    const opened = streams.length;
    const waiting = book.wait(5000);
    expect(streams).toHaveLength(opened + 1);
    streams[opened].send(4, true, [flash(4)]);
    await waiting;
    expect(book.version).toBe(4);
  });

  it('makes paid admissions UNIMPLEMENTED while billing-service does not serve the watch (an older release)', () => {
    streams[0].emit('error', Object.assign(new Error('12 UNIMPLEMENTED'), { code: status.UNIMPLEMENTED }));
    expect(() => book.priceOf('vendor-v4-flash')).toThrow(expect.objectContaining({ kind: 'unimplemented' }));
  });
});
