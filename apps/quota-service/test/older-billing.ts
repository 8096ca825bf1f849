import {
  Client,
  credentials,
  handleBidiStreamingCall,
  handleUnaryCall,
  MethodDefinition,
  Server,
  ServerCredentials,
  UntypedHandleCall,
} from '@grpc/grpc-js';
import { billingV1 } from '@gw/contracts';

/** A billing-service of an older release, in front of a real one. */
export interface OlderBilling {
  address: string;
  /** Calls it forwarded, by method name (ExtendCreditLine...). */
  served: Map<string, number>;
  stop(): void;
}

const bytes = (message: Buffer) => message;

/**
 * billing-service as a release without `without` serves it: that method answers UNIMPLEMENTED
 * (grpc-js's answer for a method a server does not implement), every other unary or bidi method
 * is forwarded as it is, bytes unread, to the billing-service at `address` (plain text on
 * loopback), its answers and streams passed back.
 */
export async function startOlderBilling(address: string, without: string): Promise<OlderBilling> {
  const upstream = new Client(address, credentials.createInsecure());
  const served = new Map<string, number>();
  const definition: Record<string, MethodDefinition<Buffer, Buffer>> = {};
  const implementation: Record<string, UntypedHandleCall> = {};
  for (const [name, { path, requestStream, responseStream }] of Object.entries(billingV1.BillingService)) {
    const method = path.split('/').pop() ?? '';
    if (method === without || requestStream !== responseStream) continue;
    definition[name] = {
      path,
      requestStream,
      responseStream,
      requestSerialize: bytes,
      requestDeserialize: bytes,
      responseSerialize: bytes,
      responseDeserialize: bytes,
    };
    const count = () => served.set(method, (served.get(method) ?? 0) + 1);
    const unary: handleUnaryCall<Buffer, Buffer> = (call, callback) => {
      count();
      upstream.makeUnaryRequest(path, bytes, bytes, call.request, callback);
    };
    const bidi: handleBidiStreamingCall<Buffer, Buffer> = (call) => {
      count();
      const out = upstream.makeBidiStreamRequest(path, bytes, bytes);
      out.on('data', (message: Buffer) => call.write(message));
      out.on('end', () => call.end());
      out.on('error', (err: Error) => call.destroy(err));
      call.on('data', (message: Buffer) => out.write(message));
      call.on('end', () => out.end());
      call.on('cancelled', () => out.cancel());
    };
    implementation[name] = requestStream ? bidi : unary;
  }
  const server = new Server();
  server.addService(definition, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    address: `127.0.0.1:${port}`,
    served,
    stop: () => {
      server.forceShutdown();
      upstream.close();
    },
  };
}
