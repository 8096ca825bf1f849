import { Metadata, ServerDuplexStream, status } from '@grpc/grpc-js';
import { inRpcServerSpan } from '@gw/telemetry';
import { STREAM_ENDING, StreamedAnswer, StreamedCall, StreamedCalls } from './call-stream-client';
import { Logger } from '../process/logger';
import { histogram } from '../process/metrics';
import { rpcDuration, rpcStatusOf } from './unary-handler';

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

/** What a call stream serves: each call's method name (for metrics, logs and spans) and its answer. */
export interface CallStreamServe<Q, A> {
  /** The gRPC service of the unary methods the calls stand for (`quota.v1.Quota`), naming their spans. */
  rpcService: string;
  methodOf(request: Q): string;
  /**
   * Answers one call as its unary method would; `callerGone` as unaryHandler gives it, and the
   * stream's request `metadata` (its caller: isCaller).
   */
  serve(request: Q, callerGone: () => boolean, metadata: Metadata): Promise<A>;
}

/**
 * The server side of CallStreamClient: every call of every batch is served on its own (counted
 * and timed under its method's name, as unaryHandler does), the calls per message counted under
 * `streamMethod`, and the answers ready in one turn of the event loop go back together. A call is past its caller once
 * its `timeoutMs` has passed since it arrived, the client cancelled it, or the stream was cancelled. When the client ends
 * its side, or the server drains (drainCallStreams), the stream is ended once every call on it
 * has been answered.
 */
export function callStreamHandler<Q, A>(
  logger: Logger,
  streamMethod: string,
  served: CallStreamServe<Q, A>,
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
      // An unset oneof or message arrives as undefined, which Q includes where the contract allows it.
      request = request as Q;
      running++;
      serving.add(callId);
      if (ending) return send({ callId, response: undefined, errorCode: status.UNAVAILABLE, errorMessage: STREAM_ENDING });
      const method = served.methodOf(request);
      const arrived = Date.now();
      const done = rpcDuration.startTimer({ method });
      const callerGone = () => call.cancelled || cancelled.has(callId) || Date.now() - arrived > timeoutMs;
      inRpcServerSpan(served.rpcService, method, traceContext, () =>
        served.serve(request, callerGone, call.metadata).then(
          (response) => {
            done({ code: status[status.OK] });
            logger.debug('call served', { method, code: status[status.OK], ms: Date.now() - arrived });
            send({ callId, response, errorCode: status.OK, errorMessage: '' });
          },
          (err: unknown) => {
            const failed = rpcStatusOf(err, logger, method);
            done({ code: status[failed.code] });
            logger.debug('call served', { method, code: status[failed.code], ms: Date.now() - arrived });
            send({ callId, response: undefined, errorCode: failed.code, errorMessage: failed.details });
          },
        ),
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
