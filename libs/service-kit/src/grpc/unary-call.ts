import { CallOptions, ClientUnaryCall, Metadata, ServiceError } from '@grpc/grpc-js';

/** The full-signature form of a ts-proto grpc-js client method. */
export type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (err: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** Calls a unary gRPC method with a deadline; rejects with the grpc-js ServiceError. */
export function unaryCall<Req, Res>(
  method: UnaryMethod<Req, Res>,
  request: Req,
  timeoutMs: number,
  metadata = new Metadata(),
): Promise<Res> {
  return new Promise((resolve, reject) => {
    method(request, metadata, { deadline: Date.now() + timeoutMs }, (err, response) => (err ? reject(err) : resolve(response)));
  });
}
