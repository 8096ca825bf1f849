import { Metadata, ServerUnaryCall, sendUnaryData, status } from '@grpc/grpc-js';
import { Logger } from '../process/logger';
import { histogram, LATENCY_BUCKETS } from '../process/metrics';
import { DomainError } from '@gw/errors';
import { grpcCodeOf, RpcError } from './rpc-error';

/** Every call a service answers, unary or carried on a call stream, by method name and status code. */
export const rpcDuration = histogram(
  'grpc_server_handling_seconds',
  'Time to answer a gRPC call, by method and status code.',
  ['method', 'code'],
  LATENCY_BUCKETS,
);

/**
 * The gRPC status an error is answered with: an RpcError keeps its code and message, a domain
 * refusal takes its kind's code (grpcCodeOf) and keeps its message, anything
 * else is logged and answered as INTERNAL without its text.
 */
export function rpcStatusOf(err: unknown, logger: Logger, method: string): { code: status; details: string } {
  if (err instanceof RpcError) return { code: err.code, details: err.message };
  if (err instanceof DomainError) return { code: grpcCodeOf(err) as status, details: err.message };
  logger.error('rpc failed', { method, err });
  return { code: status.INTERNAL, details: 'internal error' };
}

/**
 * Adapts an async function to a grpc-js unary handler: errors become gRPC statuses (rpcStatusOf). Every call's duration and status go to
 * `grpc_server_handling_seconds`, and a debug line. `callerGone()` tells whether the caller cancelled or its
 * deadline passed (grpc-js's `cancelled`, read when asked: nothing is allocated per call): a
 * handler that changes state checks it, as the caller will never learn what it did.
 */
export function unaryHandler<Req, Res>(
  logger: Logger,
  method: string,
  fn: (request: Req, metadata: Metadata, callerGone: () => boolean) => Promise<Res>,
): (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void {
  return (call, callback) => {
    const started = Date.now();
    const done = rpcDuration.startTimer({ method });
    fn(call.request, call.metadata, () => call.cancelled).then(
      (response) => {
        done({ code: status[status.OK] });
        logger.debug('call served', { method, code: status[status.OK], ms: Date.now() - started });
        callback(null, response);
      },
      (err: unknown) => {
        const failed = rpcStatusOf(err, logger, method);
        done({ code: status[failed.code] });
        logger.debug('call served', { method, code: status[failed.code], ms: Date.now() - started });
        callback(failed);
      },
    );
  };
}
