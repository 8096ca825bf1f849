import { status } from '@grpc/grpc-js';
import { DomainError, DomainErrorKind } from '@gw/errors';

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

/** The one mapping of the domain's refusals to gRPC statuses. */
const CODE_OF_KIND: Record<DomainErrorKind, status> = {
  'invalid-argument': status.INVALID_ARGUMENT,
  'not-found': status.NOT_FOUND,
  'already-exists': status.ALREADY_EXISTS,
  'failed-precondition': status.FAILED_PRECONDITION,
  'out-of-range': status.OUT_OF_RANGE,
  unavailable: status.UNAVAILABLE,
  cancelled: status.CANCELLED,
  aborted: status.ABORTED,
  unimplemented: status.UNIMPLEMENTED,
  'permission-denied': status.PERMISSION_DENIED,
};

/**
 * The gRPC status code an error stands for: a domain refusal's by its kind, an RpcError's or a
 * grpc-js ServiceError's own; undefined for any other error.
 */
export function grpcCodeOf(err: unknown): status | undefined {
  if (err instanceof DomainError) return CODE_OF_KIND[err.kind];
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'number' ? code : undefined;
}
