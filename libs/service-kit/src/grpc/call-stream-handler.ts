import { ServerDuplexStream, status } from '@grpc/grpc-js';
import { STREAM_ENDING, StreamedAnswer, StreamedCall, StreamedCalls } from './call-stream-client';
import { histogram } from '../process/metrics';
import { ChainedMethods } from './rpc-service';
import { RpcStatus } from './server-chain';

/** The call streams this process serves now, so that a shutdown can end them (drainCallStreams). */
const openStreams = new Set<{ drain(): void }>();

/**
 * Ends every call stream this process serves once the calls it has are answered; a call that
 * arrives meanwhile is refused with UNAVAILABLE unserved, so its client may send it elsewhere.
 * A server calls it as it shuts down: a long-lived stream would otherwise hold the shutdown to
 * its grace period and be cut with calls on it.
 */
export function drainCallStreams(): void {
  for (const stream of [...openStreams]) stream.drain();
}

const batchSize = histogram(
  'grpc_server_call_stream_batch_calls',
  'Calls carried by one message of a call stream, by stream method.',
  ['method'],
  [1, 2, 4, 8, 16, 32, 64, 128, 256],
);

/**
 * The server's side of a call stream's messages: which unary method a carried call stands for,
 * its request, and how that method's response goes back. The client's side is CallWrapping.
 */
export interface CallDispatching<Q, A> {
  /** The key of the method a call stands for; undefined when it names none. */
  keyOf(request: Q | undefined): string | undefined;
  valueOf(request: Q): unknown;
  answer(request: Q, response: unknown): A;
}

/** Calls whose request is a oneof of the methods' requests (quota.v1 EdgeCall), keyed as the definition's methods are. */
export const ONEOF_DISPATCHING: CallDispatching<{ $case: string; value: unknown }, { $case: string; value: unknown }> = {
  keyOf: (request) => request?.$case,
  valueOf: (request) => request.value,
  answer: (request, response) => ({ $case: request.$case, value: response }),
};

/** Calls that all stand for one method (billing.v1 AuthorizeCall carries Authorize's request). */
export function oneMethodDispatching<Q, A>(key: string): CallDispatching<Q, A> {
  return {
    keyOf: (request) => (request === undefined ? undefined : key),
    valueOf: (request) => request,
    answer: (_request, response) => response as A,
  };
}

/**
 * The server side of CallStreamClient: every call of every batch is served on its own, as its
 * unary method would be, through the same chain (ChainedMethods: timed, counted, logged and its
 * errors mapped under the method's name); the calls per message are counted under
 * `streamMethod`, and the answers ready in one turn of the event loop go back together. A call is past its caller once
 * its `timeoutMs` has passed since it arrived, the client cancelled it, or the stream was cancelled. When the client ends
 * its side, or the server drains (drainCallStreams), the stream is ended once every call on it
 * has been answered.
 */
export function callStreamHandler<Q, A>(
  streamMethod: string,
  methods: ChainedMethods,
  dispatching: CallDispatching<Q, A>,
): (call: ServerDuplexStream<StreamedCalls<Q>, { answers: StreamedAnswer<A>[] }>) => void {
  return (call) => {
    let running = 0;
    let ending = false;
    /** The ids of calls being served, and those of them the client has cancelled (past its deadline). */
    const serving = new Set<number>();
    const cancelled = new Set<number>();
    let ready: StreamedAnswer<A>[] = [];
    const writable = () => !call.cancelled && !call.writableEnded;
    const flush = () => {
      const answers = ready;
      ready = [];
      if (answers.length > 0 && writable()) call.write({ answers });
      if (ending && running === 0 && writable()) call.end();
    };
    const end = () => {
      ending = true;
      if (running === 0 && ready.length === 0) flush();
    };
    const registration = { drain: end };
    openStreams.add(registration);
    const forget = () => openStreams.delete(registration);
    const send = (answer: StreamedAnswer<A>) => {
      running--;
      serving.delete(answer.callId);
      cancelled.delete(answer.callId);
      if (ready.length === 0) setImmediate(flush);
      ready.push(answer);
    };
    const serveOne = ({ callId, timeoutMs, request, traceContext }: StreamedCall<Q>) => {
      running++;
      serving.add(callId);
      if (ending) return send({ callId, response: undefined, errorCode: status.UNAVAILABLE, errorMessage: STREAM_ENDING });
      const arrived = Date.now();
      const callerGone = () => call.cancelled || cancelled.has(callId) || Date.now() - arrived > timeoutMs;
      // An unset oneof or message arrives as undefined: the call names no method.
      const key = dispatching.keyOf(request);
      const value = key === undefined ? undefined : dispatching.valueOf(request as Q);
      methods.serve(streamMethod, key, value, { metadata: call.metadata, callerGone, traceCarrier: traceContext }).then(
        (response) => send({ callId, response: dispatching.answer(request as Q, response), errorCode: status.OK, errorMessage: '' }),
        (failed: RpcStatus) => send({ callId, response: undefined, errorCode: failed.code, errorMessage: failed.details }),
      );
    };
    call.on('data', (batch: StreamedCalls<Q>) => {
      for (const id of batch.cancelledCallIds) if (serving.has(id)) cancelled.add(id);
      if (batch.calls.length === 0) return;
      batchSize.observe({ method: streamMethod }, batch.calls.length);
      batch.calls.forEach(serveOne);
    });
    call.on('end', end);
    // A cancelled stream (the client went, or its connection did) is answered no more.
    call.on('error', forget);
    call.on('close', forget);
    call.on('finish', forget);
  };
}
