import { ClientReadableStream } from '@grpc/grpc-js';
import { eventsV1 } from '@gw/contracts';
import { Backoff, backoffMs, fromHolderEventKindWire, Logger } from '@gw/service-kit';
import { HolderNotice } from '../domain/holder-notice';
import { streamUp } from '../notifier-metrics';

/** A service whose holder events are followed: its name and its WatchHolderEvents from a cursor. */
export interface EventSource {
  name: string;
  open(after: string): ClientReadableStream<{ events: eventsV1.HolderEvent[] }>;
}

/** Who takes each event (EventTaker). */
export interface NoticeTaker {
  take(notice: HolderNotice, cursor: string): Promise<void>;
}

/** The waits before a stream is opened again and before an event is taken again, after failures in a row. */
const RETRY: Backoff = { firstMs: 250, maxMs: 10_000 };
/**
 * A stream that ran this long before it ended was not refused: it ended as a watch does, its
 * connection past the server's maximum age (GRPC_MAX_CONNECTION_AGE_MS, every minute or so) or
 * the service restarted. It is opened again after the first wait, without a warning.
 */
export const STREAM_LIVED_MS = 10_000;

/**
 * Follows one service's holder events from the cursor kept in the store: each event is taken in
 * turn (the stream waits meanwhile), and one that cannot be taken yet (the console or the store
 * does not answer) is tried again until it is, never skipped. A stream that ends or fails (the
 * service restarted, a connection's age) is opened again from the kept cursor: after the first
 * wait when it had run a while (STREAM_LIVED_MS), after a longer wait each time it fails at once.
 */
export class EventStreamFollower {
  private stopped = false;
  private stream: ClientReadableStream<{ events: eventsV1.HolderEvent[] }> | undefined;
  private loop: Promise<void> | undefined;
  private wakeSleeper: (() => void) | undefined;

  constructor(
    private readonly source: EventSource,
    private readonly cursors: { cursor(source: string): Promise<string> },
    private readonly taker: NoticeTaker,
    private readonly logger: Logger,
    private readonly livedMs = STREAM_LIVED_MS,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Ends the stream; resolves once the event being taken is taken (or its try ends). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stream?.cancel();
    this.wakeSleeper?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    for (let failures = 0; !this.stopped;) {
      const openedAt = Date.now();
      try {
        await this.followOnce();
        failures = 0;
      } catch (err) {
        if (this.stopped) break;
        const livedMs = Date.now() - openedAt;
        failures = livedMs >= this.livedMs ? 0 : failures + 1;
        const fields = { source: this.source.name, livedMs, err };
        if (failures === 0) this.logger.info('holder events stream ended: opened again from the kept cursor', fields);
        else this.logger.warn('holder events stream failed: opened again from the kept cursor', fields);
      } finally {
        streamUp.set({ source: this.source.name }, 0);
      }
      await this.sleep(backoffMs(Math.max(1, failures), RETRY));
    }
  }

  private async followOnce(): Promise<void> {
    const after = await this.cursors.cursor(this.source.name);
    if (this.stopped) return;
    const stream = this.source.open(after);
    this.stream = stream;
    streamUp.set({ source: this.source.name }, 1);
    try {
      for await (const message of stream as AsyncIterable<{ events: eventsV1.HolderEvent[] }>) {
        for (const event of message.events) await this.takeUntilTaken(event);
      }
    } finally {
      this.stream = undefined;
      stream.cancel();
    }
  }

  private async takeUntilTaken(event: eventsV1.HolderEvent): Promise<void> {
    const kind = fromHolderEventKindWire(event.kind);
    if (!kind) {
      // A kind this release does not know (a newer service): nothing to write; the cursor moves with the next event.
      this.logger.warn('holder event of an unknown kind skipped', { source: this.source.name, eventId: event.id, kind: event.kind });
      return;
    }
    const notice: HolderNotice = {
      source: this.source.name,
      id: event.id,
      at: new Date(event.at),
      accountId: event.accountId,
      kind,
      details: JSON.parse(event.detailsJson) as HolderNotice['details'],
    };
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.taker.take(notice, event.cursor);
      } catch (err) {
        if (this.stopped) throw err;
        this.logger.warn('holder event not taken yet: will try again', { source: this.source.name, eventId: event.id, attempt, err });
        await this.sleep(backoffMs(attempt, RETRY));
      }
    }
  }

  /** Waits `ms`, or less if the follower stops. */
  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeSleeper = done;
    });
  }
}
