import { PassThrough } from 'node:stream';
import { ClientReadableStream } from '@grpc/grpc-js';
import { eventsV1 } from '@gw/contracts';
import { createLogger } from '@gw/service-kit';
import { EventSource, EventStreamFollower } from './event-stream-follower';

type Stream = ClientReadableStream<{ events: eventsV1.HolderEvent[] }>;

const event = (id: number): eventsV1.HolderEvent => ({
  cursor: `c${id}`,
  id,
  at: '2026-12-07T04:00:00.000Z',
  accountId: 'acct_1',
  kind: eventsV1.HolderEventKind.HOLDER_EVENT_KIND_TOP_UP_CREDITED,
  detailsJson: '{"amountMicro":5000000,"balanceMicro":5000000}',
});

/** A service's WatchHolderEvents whose streams the test feeds and cuts, as a connection's age or a restart would. */
class FakeSource implements EventSource {
  readonly name = 'billing-service';
  readonly openedAfter: string[] = [];
  readonly streams: PassThrough[] = [];
  private opened: (() => void)[] = [];

  open(after: string): Stream {
    this.openedAfter.push(after);
    const stream = new PassThrough({ objectMode: true });
    Object.assign(stream, { cancel: () => stream.destroy(Object.assign(new Error('Cancelled on client'), { code: 1 })) });
    this.streams.push(stream);
    this.opened.splice(0).forEach((resolve) => resolve());
    return stream as unknown as Stream;
  }

  /** Resolves once `n` streams were opened. */
  async opens(n: number): Promise<void> {
    while (this.streams.length < n) await new Promise<void>((resolve) => this.opened.push(resolve));
  }

  cut(index: number): void {
    this.streams[index].destroy(Object.assign(new Error('Connection dropped'), { code: 14 }));
  }
}

function follow(livedMs: number) {
  const source = new FakeSource();
  let cursor = '';
  const taken: number[] = [];
  const lines: { level: string; msg: string }[] = [];
  const logger = createLogger('notifier-test', 'info', (line) => lines.push(JSON.parse(line)));
  const taker = {
    take: async (notice: { id: number }, at: string) => {
      taken.push(notice.id);
      cursor = at;
    },
  };
  const follower = new EventStreamFollower(source, { cursor: async () => cursor }, taker, logger, livedMs);
  follower.start();
  return { source, taken, lines, follower };
}

describe('EventStreamFollower', () => {
  it('opens a stream that ran a while and was cut again from the kept cursor, as a watch ending, not a warning', async () => {
    const { source, taken, lines, follower } = follow(0);
    try {
      await source.opens(1);
      source.streams[0].write({ events: [event(1), event(2)] });
      while (taken.length < 2) await new Promise((resolve) => setImmediate(resolve));
      source.cut(0);
      await source.opens(2);
      source.cut(1);
      await source.opens(3);
      expect(source.openedAfter).toEqual(['', 'c2', 'c2']);
      expect(taken).toEqual([1, 2]);
      expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
      expect(lines.filter((l) => l.msg === 'holder events stream ended: opened again from the kept cursor')).toHaveLength(2);
    } finally {
      await follower.stop();
    }
  });

  it('warns when streams fail as soon as they open (the service refuses them)', async () => {
    const { source, lines, follower } = follow(60_000);
    try {
      await source.opens(1);
      source.cut(0);
      await source.opens(2);
      source.cut(1);
      await source.opens(3);
      expect(lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
        'holder events stream failed: opened again from the kept cursor',
        'holder events stream failed: opened again from the kept cursor',
      ]);
    } finally {
      await follower.stop();
    }
  });
});
