import { ServerWritableStream, status } from '@grpc/grpc-js';
import { eventsV1 } from '@gw/contracts';
import { decodeCursor, encodeCursor } from './holder-event-cursor';
import { toHolderEventKindWire } from './holder-event-kinds';
import { HolderEventFeed, HolderEventWatch } from './holder-event-feed';
import { HolderEvent } from './pg-holder-events';

/** An event as events.v1 carries it. */
export const toHolderEventMessage = (e: HolderEvent): eventsV1.HolderEvent => ({
  cursor: encodeCursor(e.cursor),
  id: e.id,
  at: e.at.toISOString(),
  accountId: e.accountId,
  kind: toHolderEventKindWire(e.kind),
  detailsJson: JSON.stringify(e.details),
});

type WatchCall = ServerWritableStream<{ after: string }, { events: eventsV1.HolderEvent[] }>;

/**
 * A service's WatchHolderEvents (auth.v1, billing.v1): the caller's stream, served by the feed
 * from the cursor it gives (INVALID_ARGUMENT for one that is not) until it goes or the feed ends
 * it (UNAVAILABLE). A write the stream cannot take yet is waited for (drain) before more are read.
 */
export function watchHolderEvents(feed: HolderEventFeed): (call: WatchCall) => void {
  return (call) => {
    const cursor = decodeCursor(call.request.after);
    if (!cursor) {
      call.emit('error', { code: status.INVALID_ARGUMENT, details: 'after is not a cursor of this stream' });
      return;
    }
    let open = true;
    // The feed reads before it sends: nothing below is called before `watch` is set.
    const watch: HolderEventWatch = feed.add(cursor, {
      send: (events) =>
        new Promise<void>((resolve) => {
          if (!open) return resolve();
          if (call.write({ events: events.map(toHolderEventMessage) })) return resolve();
          const done = () => {
            call.off('drain', done);
            call.off('close', done);
            resolve();
          };
          call.on('drain', done);
          call.on('close', done);
        }),
      end: (reason) => {
        if (!open) return;
        close();
        call.emit('error', { code: status.UNAVAILABLE, details: reason });
      },
    });
    function close() {
      open = false;
      watch.remove();
    }
    call.on('cancelled', close);
    call.on('error', close);
    call.on('close', close);
  };
}
