import { Database, Listening } from '../db/database';
import { Logger } from '../process/logger';
import { counter, gauge } from '../process/metrics';
import { HolderEventCursor } from './holder-event-cursor';
import { holderEventsChannel, HolderEvent, PgHolderEvents } from './pg-holder-events';

/** Events read per query. */
const PAGE = 100;
/** The first wait before a page held back (an older transaction still runs) is read again; it doubles up to the poll. */
const HELD_FIRST_MS = 50;

const watchersGauge = gauge(
  'holder_event_watchers',
  'Streams of holder events being served (the notifier replicas following this service).',
);
const eventsSent = counter('holder_events_sent_total', 'Holder events sent on the streams (each stream counts its own).');

/** Where a watcher's events go. */
export interface HolderEventSink {
  /** Sends events in order; resolves once they are written out (the stream can take more). */
  send(events: HolderEvent[]): Promise<void>;
  /** The feed cannot go on for this watcher (the database failed, the service stops): end its stream. */
  end(reason: string): void;
}

/** A watcher of the feed. */
export interface HolderEventWatch {
  /** Stops sending to it. */
  remove(): void;
}

interface Watcher {
  cursor: HolderEventCursor;
  sink: HolderEventSink;
  removed: boolean;
  pumping: boolean;
  /** Woken while pumping: pump again once done. */
  again: boolean;
  heldTimer: NodeJS.Timeout | undefined;
  heldWaitMs: number;
}

/**
 * Serves a schema's holder events to their watchers (the notifier's streams), each from its own
 * cursor. It looks when a commit announces events (LISTEN on a connection of its own) and every
 * `pollMs` besides, as a notification can be missed; with no watcher it holds no connection and
 * runs no timer, and a look that finds nothing new is one indexed query per watcher.
 */
export class HolderEventFeed {
  private readonly watchers = new Set<Watcher>();
  private listening: Listening | undefined;
  private opening: Promise<void> | undefined;
  private poll: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly events: PgHolderEvents,
    private readonly pollMs: number,
    private readonly logger: Logger,
  ) {}

  /** Sends `sink` every settled event after `cursor`, then each new one, until removed or ended. */
  add(cursor: HolderEventCursor, sink: HolderEventSink): HolderEventWatch {
    const watcher: Watcher = {
      cursor,
      sink,
      removed: false,
      pumping: false,
      again: false,
      heldTimer: undefined,
      heldWaitMs: HELD_FIRST_MS,
    };
    this.watchers.add(watcher);
    watchersGauge.set(this.watchers.size);
    if (this.watchers.size === 1) this.wakeUp();
    void this.pump(watcher);
    return { remove: () => this.remove(watcher) };
  }

  /** Ends every watcher's stream (the service stops) and lets go of the connection. */
  endAll(reason: string): void {
    for (const watcher of [...this.watchers]) {
      this.remove(watcher);
      watcher.sink.end(reason);
    }
  }

  private remove(watcher: Watcher): void {
    if (watcher.removed) return;
    watcher.removed = true;
    clearTimeout(watcher.heldTimer);
    this.watchers.delete(watcher);
    watchersGauge.set(this.watchers.size);
    if (this.watchers.size === 0) this.sleep();
  }

  /** The first watcher came: listen, and poll. */
  private wakeUp(): void {
    void this.listen();
    this.schedulePoll();
  }

  /** No watcher is left: no connection, no timer. */
  private sleep(): void {
    clearTimeout(this.poll);
    this.poll = undefined;
    const listening = this.listening;
    this.listening = undefined;
    void listening?.close();
  }

  private schedulePoll(): void {
    this.poll = setTimeout(() => {
      if (this.watchers.size === 0) return;
      if (!this.listening) void this.listen();
      this.pumpAll();
      this.schedulePoll();
    }, this.pollMs);
    this.poll.unref();
  }

  private async listen(): Promise<void> {
    if (this.listening || this.opening) return this.opening;
    this.opening = (async () => {
      try {
        const listening = await this.db.listen(
          holderEventsChannel(this.events.schema),
          () => this.pumpAll(),
          (err) => {
            this.listening = undefined;
            this.logger.warn('holder events: listening connection lost, polling until it is back', { err });
          },
        );
        if (this.watchers.size === 0) await listening.close();
        else {
          this.listening = listening;
          // Whatever committed while the connection was away is looked at now.
          this.pumpAll();
        }
      } catch (err) {
        this.logger.warn('holder events: cannot listen, polling', { err });
      } finally {
        this.opening = undefined;
      }
    })();
    return this.opening;
  }

  private pumpAll(): void {
    for (const watcher of this.watchers) void this.pump(watcher);
  }

  /** Sends the watcher what is settled after its cursor; one pump at a time per watcher. */
  private async pump(watcher: Watcher): Promise<void> {
    if (watcher.pumping) {
      watcher.again = true;
      return;
    }
    watcher.pumping = true;
    try {
      do {
        watcher.again = false;
        for (;;) {
          const page = await this.events.after(this.db, watcher.cursor, PAGE);
          if (watcher.removed) return;
          if (page.events.length > 0) {
            await watcher.sink.send(page.events);
            eventsSent.inc(page.events.length);
            watcher.cursor = page.events[page.events.length - 1].cursor;
            watcher.heldWaitMs = HELD_FIRST_MS;
          }
          if (page.held) this.lookAgainSoon(watcher);
          if (page.held || page.events.length < PAGE) break;
        }
      } while (watcher.again && !watcher.removed);
    } catch (err) {
      this.logger.warn('holder events not read: the stream is ended, its watcher resumes from its cursor', { err });
      this.remove(watcher);
      watcher.sink.end('holder events could not be read');
    } finally {
      watcher.pumping = false;
    }
  }

  /** Events are held back behind a transaction still running: look again after a wait that doubles, up to the poll's. */
  private lookAgainSoon(watcher: Watcher): void {
    if (watcher.heldTimer) return;
    watcher.heldTimer = setTimeout(() => {
      watcher.heldTimer = undefined;
      if (!watcher.removed) void this.pump(watcher);
    }, watcher.heldWaitMs);
    watcher.heldTimer.unref();
    watcher.heldWaitMs = Math.min(this.pollMs, watcher.heldWaitMs * 2);
  }
}
