import { ClientDuplexStream, Metadata, ServiceError, status } from '@grpc/grpc-js';

/** One call on a call stream (quota.v1 EdgeCall, billing.v1 AuthorizeCall). */
export interface StreamedCall<Q> {
  callId: number;
  timeoutMs: number;
  request: Q;
}

/** Its answer (quota.v1 EdgeAnswer, billing.v1 AuthorizeAnswer): a response, or a status code and message. */
export interface StreamedAnswer<A> {
  callId: number;
  response: A | undefined;
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

interface Pending<A> {
  resolve(response: A): void;
  reject(err: ServiceError): void;
  timer: NodeJS.Timeout;
}

interface OpenStream<Q, A> {
  call: ReturnType<OpenCallStream<Q, A>>;
  openedAt: number;
  pending: Map<number, Pending<A>>;
  failed: boolean;
  /** Ended by the client (rotated out): nothing more can be written to it. */
  retired: boolean;
}

/** A grpc-js ServiceError, as a unary call would have failed: the retry policy and metrics read its code. */
export function serviceError(code: status, details: string): ServiceError {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata: new Metadata() });
}

/**
 * Unary calls carried on a few long-lived bidirectional streams: the calls made in one turn of
 * the event loop go together in one message, and each is answered on its own. A call has a
 * deadline as a unary call does (DEADLINE_EXCEEDED, and the server is told the call is
 * cancelled, as a unary call's RST_STREAM would tell it); a stream that fails or ends fails every call
 * on it still unanswered, with the stream's status (else UNAVAILABLE), and the next call opens a new one.
 */
export class CallStreamClient<Q, A> {
  private readonly slots: (OpenStream<Q, A> | undefined)[];
  private next = 0;
  private nextCallId = 1;
  private queued: { stream: OpenStream<Q, A>; calls: StreamedCall<Q>[] } | undefined;
  private closed = false;

  constructor(
    private readonly open: OpenCallStream<Q, A>,
    private readonly settings: CallStreamSettings,
  ) {
    this.slots = new Array<OpenStream<Q, A> | undefined>(settings.streams).fill(undefined);
  }

  call(request: Q, timeoutMs: number): Promise<A> {
    if (this.closed) return Promise.reject(serviceError(status.UNAVAILABLE, 'client closed'));
    if (!this.queued) {
      this.queued = { stream: this.streamForBatch(), calls: [] };
      setImmediate(() => this.flush());
    }
    const { stream, calls } = this.queued;
    const callId = this.nextCallId++;
    calls.push({ callId, timeoutMs, request });
    return new Promise<A>((resolve, reject) => {
      const timer = setTimeout(() => {
        stream.pending.delete(callId);
        reject(serviceError(status.DEADLINE_EXCEEDED, `no answer within ${timeoutMs} ms`));
        // As a unary call's deadline cancels it: the server takes the call as one whose caller has gone.
        if (!stream.failed && !stream.retired) stream.call.write({ calls: [], cancelledCallIds: [callId] });
      }, timeoutMs);
      stream.pending.set(callId, { resolve, reject, timer });
    });
  }

  /** Ends every stream; calls still unanswered fail with CANCELLED. */
  close(): void {
    this.closed = true;
    for (const stream of this.slots) if (stream) this.fail(stream, serviceError(status.CANCELLED, 'client closed'));
    this.slots.fill(undefined);
  }

  private flush(): void {
    const batch = this.queued;
    this.queued = undefined;
    // Calls queued on a stream that failed meanwhile have been failed with it.
    if (batch && !batch.stream.failed) batch.stream.call.write({ calls: batch.calls, cancelledCallIds: [] });
  }

  /** The next slot's stream, opened anew when it has none or its time is up (the old one ends once answered). */
  private streamForBatch(): OpenStream<Q, A> {
    const slot = this.next;
    this.next = (this.next + 1) % this.slots.length;
    const current = this.slots[slot];
    if (current && Date.now() - current.openedAt < this.settings.rotateMs) return current;
    if (current) this.retire(current);
    const stream: OpenStream<Q, A> = { call: this.open(), openedAt: Date.now(), pending: new Map(), failed: false, retired: false };
    stream.call.on('data', (batch: { answers: StreamedAnswer<A>[] }) => this.answer(stream, batch.answers));
    stream.call.on('error', (err: ServiceError) => this.fail(stream, err));
    stream.call.on('end', () => this.fail(stream, serviceError(status.UNAVAILABLE, 'call stream ended')));
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
      const pending = stream.pending.get(answer.callId);
      if (!pending) continue;
      stream.pending.delete(answer.callId);
      clearTimeout(pending.timer);
      if (answer.errorCode !== status.OK || answer.response === undefined) pending.reject(serviceError(answer.errorCode || status.INTERNAL, answer.errorMessage));
      else pending.resolve(answer.response);
    }
  }

  private fail(stream: OpenStream<Q, A>, err: ServiceError): void {
    if (stream.failed) return;
    stream.failed = true;
    const slot = this.slots.indexOf(stream);
    if (slot >= 0) this.slots[slot] = undefined;
    const failure = err.code === status.OK ? serviceError(status.UNAVAILABLE, 'call stream ended') : serviceError(err.code, err.details);
    for (const pending of stream.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(failure);
    }
    stream.pending.clear();
    // A stream failed by the client itself (close) must also stop.
    stream.call.cancel();
  }
}
