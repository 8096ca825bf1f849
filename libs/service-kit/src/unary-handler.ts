import { Metadata, ServerUnaryCall, sendUnaryData, status } from '@grpc/grpc-js';
import { Logger } from './logger';
import { RpcError } from './rpc-error';

/**
 * Adapts an async function to a grpc-js unary handler. This is the one exit point where errors
 * become gRPC statuses: an RpcError keeps its code and message, anything else is logged and
 * answered as INTERNAL without its text.
 */
export function unaryHandler<Req, Res>(
  logger: Logger,
  method: string,
  fn: (request: Req, metadata: Metadata) => Promise<Res>,
): (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void {
  return (call, callback) => {
    fn(call.request, call.metadata).then(
      (response) => callback(null, response),
      (err: unknown) => {
        if (err instanceof RpcError) {
          callback({ code: err.code, details: err.message });
          return;
        }
        logger.error('rpc failed', { method, err });
        callback({ code: status.INTERNAL, details: 'internal error' });
      },
    );
  };
}
