import { status } from '@grpc/grpc-js';

/**
 * A refusal a gRPC handler means to send, with a status and a message safe to show the caller.
 * Any other error thrown by a handler is answered as INTERNAL without its text.
 */
export class RpcError extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}
