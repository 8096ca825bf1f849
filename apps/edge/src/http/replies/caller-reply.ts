import { Response } from 'express';
import { AppError } from '@gw/errors';
import { openStreams } from '../../edge-metrics';
import { CallerEnd } from '../../domain/end-reason';
import { ReplyListener } from '../../upstream/reply-listener';
import { WholeReply } from '../../upstream/whole-reply';
import { openEventStream } from './event-stream';
import { gatewayTimeout } from './front-proxy-reply';
import { RequestRecord } from '../logging/request-record';

// A caller that stops reading a stream is let go once this much waits for it; the provider's
// reply is still read to the end (docs/api.md#billing-rules) without holding more of it in memory.
const CALLER_BACKLOG_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * The caller's side of a chat request: writes what the provider side relays, and watches for
 * silence. `done` resolves once the reply is out or the caller left, and rejects with the error
 * the caller must get instead (written by the error handler, as an event when a stream is open).
 * Silence of `silenceMs` before the reply gives a 504 page; between two pieces of a stream,
 * UPSTREAM_INTERRUPTED. Either way the provider side goes on reading the reply for the bill.
 * The reply's headers carry the request's overhead (see RequestRecord.stampOverhead); an open
 * stream counts in `edge_open_streams` until it is over.
 */
export class CallerReply implements ReplyListener {
  readonly done: Promise<void>;
  private state: 'waiting' | 'streaming' | 'over' = 'waiting';
  private ended: CallerEnd = 'delivered';
  private readonly silence: NodeJS.Timeout;
  private settle!: (error?: Error) => void;
  // Let go once the reply is over: the provider side may go on reading for minutes after.
  private res: Response | undefined;

  constructor(
    res: Response,
    private readonly silenceMs: number,
    private readonly record: RequestRecord,
  ) {
    this.res = res;
    this.done = new Promise((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve());
    });
    this.silence = setTimeout(() => this.silent(), silenceMs);
    res.once('close', () => this.left());
  }

  /** How the caller's side ended (once `done` has settled): the end reason of the request's bill reads it. */
  get end(): CallerEnd {
    return this.ended;
  }

  heard(): void {
    if (this.state !== 'over') this.silence.refresh();
  }

  whole(reply: WholeReply): void {
    if (this.state !== 'waiting' || !this.res) return;
    this.res.status(reply.status).setHeader('Content-Type', reply.contentType ?? 'application/json');
    this.record.stampOverhead(this.res);
    this.res.end(reply.body);
    this.over();
  }

  streamStarted(): void {
    if (this.state !== 'waiting' || !this.res) return;
    this.record.stampOverhead(this.res);
    openEventStream(this.res);
    openStreams.inc();
    this.state = 'streaming';
  }

  events(bytes: Buffer): void {
    if (this.state !== 'streaming' || !this.res) return;
    this.res.write(bytes);
    if (this.res.writableLength > CALLER_BACKLOG_LIMIT_BYTES) this.res.destroy();
  }

  streamEnded(): void {
    if (this.state !== 'streaming' || !this.res) return;
    this.res.end();
    this.over();
  }

  fail(error: Error): void {
    if (this.state !== 'over') this.ended = 'failed';
    this.over(error);
  }

  /** The connection closed: after the reply was out this changes nothing; before, the caller left. */
  private left(): void {
    if (this.state !== 'over') this.ended = 'left';
    this.over();
  }

  private silent(): void {
    if (this.state !== 'over') this.ended = 'cut-for-silence';
    const seconds = Math.round(this.silenceMs / 1000);
    this.over(
      this.state === 'waiting'
        ? gatewayTimeout()
        : new AppError('UPSTREAM_INTERRUPTED', `The provider sent nothing for ${seconds} s; the stream was cut off.`),
    );
  }

  private over(error?: Error): void {
    if (this.state === 'over') return;
    if (this.state === 'streaming') openStreams.dec();
    this.state = 'over';
    this.res = undefined;
    clearTimeout(this.silence);
    this.settle(error);
  }
}
