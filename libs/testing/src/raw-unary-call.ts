import { CallOptions, Metadata, ServiceError } from '@grpc/grpc-js';

/** A generated grpc-js client's unary method, bound to its client. */
export type RawUnaryMethod<Q, A> = (
  request: Q,
  metadata: Metadata,
  options: Partial<CallOptions>,
  done: (err: ServiceError | null, answer: A) => void,
) => unknown;

/**
 * A unary call on a client a test built with grpc-js' own credentials, as a caller outside our
 * code would (the chat product, a caller with no certificate), which rpcClient would not make.
 */
export function rawUnaryCall<Q, A>(method: RawUnaryMethod<Q, A>, request: Q, timeoutMs: number): Promise<A> {
  return new Promise((resolve, reject) =>
    method(request, new Metadata(), { deadline: Date.now() + timeoutMs }, (err, answer) => (err ? reject(err) : resolve(answer))),
  );
}
