import { ClientDuplexStream, Metadata, ServiceError, status } from '@grpc/grpc-js';
import { TraceCarrier } from '@gw/telemetry';

/** One call on a call stream (quota.v1 EdgeCall, billing.v1 AuthorizeCall). */
export interface StreamedCall<Q> {
  callId: number;
  timeoutMs: number;
  request?: Q;
  /** The caller's W3C trace context: what gRPC metadata would carry for a unary call. */
  traceContext: TraceCarrier;
}

/** Its answer (quota.v1 EdgeAnswer, billing.v1 AuthorizeAnswer): a response, or a status code and message. */
export interface StreamedAnswer<A> {
  callId: number;
  response?: A;
  errorCode: number;
  errorMessage: string;
}

/** What the client sends: calls, and the ids of calls sent before whose answer it no longer waits for. */
export interface StreamedCalls<Q> {
  calls: StreamedCall<Q>[];
  cancelledCallIds: number[];
}

/** A bidirectional method whose messages carry calls and answers in batches. */
export type OpenCallStream<Q, A> = () => ClientDuplexStream<StreamedCalls<Q>, { answers: StreamedAnswer<A>[] }>;

/** How many streams, and how long each takes new calls. */
export interface CallStreamSettings {
  /** Streams used in turn, one batch each, so that calls spread over the replicas (round robin picks one per stream). */
  streams: number;
  /**
   * A stream takes new calls this long, then is ended once its calls are answered: new replicas
   * get calls, and no stream outlives its connection's maximum age (plus its grace).
   */
  rotateMs: number;
}

/** A call waiting for its answer: on which stream it went, and what to send again should that stream end unread. */
interface Pending<Q, A> {
  callId: number;
  request: Q;
  traceContext: TraceCarrier;
  deadline: number;
  resolve(response: A): void;
  reject(err: ServiceError): void;
  timer: NodeJS.Timeout;
  stream: OpenStream<Q, A> | undefined;
  /** Sent again once on another stream: it had reached a server that was ending its stream. */
  resent: boolean;
}

interface OpenStream<Q, A> {
  call: ReturnType<OpenCallStream<Q, A>>;
  openedAt: number;
  ended: boolean;
  /** Ended by the client (rotated out): nothing more can be written to it. */
  retired: boolean;
}

/** The message of a call refused unserved because its stream is ending (the server drains): it may go on another. */
export const STREAM_ENDING = 'the stream is ending: send the call on another';

/** A grpc-js ServiceError, as a unary call would have failed: the retry policy and metrics read its code. */
export function serviceError(code: status, details: string): ServiceError {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata: new Metadata() });
}

/**
 * Unary calls carried on a few long-lived bidirectional streams: the first calls of a turn of the
 * event loop (those made together, in one callback and its promise work) go in one message at
 * once, the calls made after them in that turn together in one more, and each is answered on
 * its own. A call has a
 * deadline as a unary call does (DEADLINE_EXCEEDED, and the server is told the call is
 * cancelled, as a unary call's RST_STREAM would tell it). A stream that fails fails every call
 * on it still unanswered with its status, as unary calls would fail; one the server ends well (it
 * drains as it shuts down) sends the calls it did not serve once more on another stream, as
 * grpc-js retries a unary call a closing connection never took. The next call opens a new stream.
 */
export class CallStreamClient<Q, A> {
  private readonly slots: (OpenStream<Q, A> | undefined)[];
  private readonly pending = new Map<number, Pending<Q, A>>();
  private next = 0;
  private nextCallId = 1;
  private queued: { stream: OpenStream<Q, A>; calls: StreamedCall<Q>[] } | undefined;
  /** A batch was written in this turn of the event loop: the next ones wait for its check phase. */
  private sentThisTurn = false;
  private closed = false;

  constructor(
    private readonly open: OpenCallStream<Q, A>,
    private readonly settings: CallStreamSettings,
  ) {
    this.slots = new Array<OpenStream<Q, A> | undefined>(settings.streams).fill(undefined);
  }

  call(request: Q, timeoutMs: number, traceContext: TraceCarrier = {}): Promise<A> {
    if (this.closed) return Promise.reject(serviceError(status.UNAVAILABLE, 'client closed'));
    return new Promise<A>((resolve, reject) => {
      const callId = this.nextCallId++;
      const entry: Pending<Q, A> = {
        callId,
        request,
        traceContext,
        deadline: Date.now() + timeoutMs,
        resolve,
        reject,
        timer: setTimeout(() => this.expire(entry), timeoutMs),
        stream: undefined,
        resent: false,
      };
      this.pending.set(callId, entry);
      this.enqueue(entry);
    });
  }

  /** Ends every stream; calls still unanswered fail with CANCELLED. */
  close(): void {
    this.closed = true;
    for (const stream of this.slots) if (stream) this.ended(stream, status.CANCELLED, 'client closed');
    this.slots.fill(undefined);
  }

  private enqueue(entry: Pending<Q, A>): void {
    if (!this.queued) {
      this.queued = { stream: this.streamForBatch(), calls: [] };
      if (this.sentThisTurn) setImmediate(() => this.flush());
      else {
        // Node's HTTP/2 sends what it was given in the loop's next check phase: a batch written
        // as soon as its callback's promise work is done leaves in this turn; one written from
        // setImmediate (in that check phase) leaves a turn later. So the first batch of a turn
        // goes at once, and the calls made after it in the same turn wait to go together.
        this.sentThisTurn = true;
        setImmediate(() => (this.sentThisTurn = false));
        queueMicrotask(() => this.flush());
      }
    }
    entry.stream = this.queued.stream;
    this.queued.calls.push({
      callId: entry.callId,
      timeoutMs: Math.max(1, entry.deadline - Date.now()),
      request: entry.request,
      traceContext: entry.traceContext,
    });
  }

  private flush(): void {
    const batch = this.queued;
    this.queued = undefined;
    if (batch && batch.calls.length > 0 && !batch.stream.ended) batch.stream.call.write({ calls: batch.calls, cancelledCallIds: [] });
  }

  /** Past its deadline: DEADLINE_EXCEEDED, and the server is told, as a unary call's deadline cancels it. */
  private expire(entry: Pending<Q, A>): void {
    this.pending.delete(entry.callId);
    entry.reject(serviceError(status.DEADLINE_EXCEEDED, 'no answer before the deadline'));
    const stream = entry.stream;
    if (stream && !stream.ended && !stream.retired) stream.call.write({ calls: [], cancelledCallIds: [entry.callId] });
  }

  private forget(entry: Pending<Q, A>): void {
    this.pending.delete(entry.callId);
    clearTimeout(entry.timer);
  }

  /** The next slot's stream, opened anew when it has none or its time is up (the old one ends once answered). */
  private streamForBatch(): OpenStream<Q, A> {
    const slot = this.next;
    this.next = (this.next + 1) % this.slots.length;
    const current = this.slots[slot];
    if (current && Date.now() - current.openedAt < this.settings.rotateMs) return current;
    if (current) this.retire(current);
    const stream: OpenStream<Q, A> = { call: this.open(), openedAt: Date.now(), ended: false, retired: false };
    stream.call.on('data', (batch: { answers: StreamedAnswer<A>[] }) => this.answer(stream, batch.answers));
    stream.call.on('status', (s: { code: status; details: string }) => this.ended(stream, s.code, s.details));
    // Its status event above says how it ended; without a listener an error event would throw.
    stream.call.on('error', () => undefined);
    this.slots[slot] = stream;
    return stream;
  }

  /** Takes no more calls; the server ends the stream once it has answered those it has. */
  private retire(stream: OpenStream<Q, A>): void {
    this.slots[this.slots.indexOf(stream)] = undefined;
    stream.retired = true;
    stream.call.end();
  }

  private answer(stream: OpenStream<Q, A>, answers: StreamedAnswer<A>[]): void {
    for (const answer of answers) {
      const entry = this.pending.get(answer.callId);
      if (!entry || entry.stream !== stream) continue;
      if (answer.errorCode === status.UNAVAILABLE && answer.errorMessage === STREAM_ENDING) {
        // The server is ending this stream: no more calls on it.
        if (this.slots.includes(stream)) this.retire(stream);
        if (this.resend(entry)) continue;
      }
      this.forget(entry);
      if (answer.errorCode !== status.OK || answer.response === undefined)
        entry.reject(serviceError(answer.errorCode || status.INTERNAL, answer.errorMessage));
      else entry.resolve(answer.response);
    }
  }

  /**
   * A stream's end. Ended well (status OK), the server answered every call it read, so those
   * still waiting never reached it and go again on another stream; otherwise they fail with the
   * stream's status, as unary calls would.
   */
  private ended(stream: OpenStream<Q, A>, code: status, details: string): void {
    if (stream.ended) return;
    stream.ended = true;
    const slot = this.slots.indexOf(stream);
    if (slot >= 0) this.slots[slot] = undefined;
    if (this.queued?.stream === stream) this.queued = undefined;
    const failure = code === status.OK ? serviceError(status.UNAVAILABLE, 'call stream ended') : serviceError(code, details);
    for (const entry of [...this.pending.values()]) {
      if (entry.stream !== stream) continue;
      if (code === status.OK && !this.closed && this.resend(entry)) continue;
      this.forget(entry);
      entry.reject(failure);
    }
    // A stream ended by the client itself (close) must also stop.
    stream.call.cancel();
  }

  /** Sends a call that no server served once more, on another stream; false when it was sent again already. */
  private resend(entry: Pending<Q, A>): boolean {
    if (entry.resent || this.closed) return false;
    entry.resent = true;
    this.enqueue(entry);
    return true;
  }
}
