import {
  ClientDuplexStream,
  makeGenericClientConstructor,
  Server,
  ServerDuplexStream,
  ServiceDefinition,
  ServiceError,
} from '@grpc/grpc-js';
import { channelCredentials, GRPC_OPTIONS, GrpcSecurity, serverCredentials } from '@gw/service-kit';
import { CallCost, measureCalls } from './call-cost';

const same = (b: Buffer) => b;
const method = (name: string, streams: boolean) => ({
  path: `/bench.Echo/${name}`,
  requestStream: streams,
  responseStream: streams,
  requestSerialize: same,
  requestDeserialize: same,
  responseSerialize: same,
  responseDeserialize: same,
});
const ECHO: ServiceDefinition = { echo: method('Echo', false), pipe: method('Pipe', true) };

/** A unary call, and a message answered on an open bidirectional stream (how the edge's per-request calls travel). */
export interface GrpcCallFloor extends CallCost {
  onStream: CallCost;
}

/**
 * The floor under every hop of the gateway: `calls` sequential calls of a 16-byte echo with
 * grpc-js, client and server in this process on loopback, with the services' channel options
 * and their mutual TLS (the server presents `server`'s certificate, the client `client`'s):
 * as unary calls, then as messages on one open stream.
 */
export async function grpcCallFloor(
  calls: number,
  tls: { server: GrpcSecurity; client: GrpcSecurity; serverIdentity: string },
): Promise<GrpcCallFloor> {
  const server = new Server(GRPC_OPTIONS);
  server.addService(ECHO, {
    echo: (call: { request: Buffer }, done: (err: null, reply: Buffer) => void) => done(null, call.request),
    pipe: (call: ServerDuplexStream<Buffer, Buffer>) => {
      call.on('data', (message: Buffer) => call.write(message));
      call.on('end', () => call.end());
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', serverCredentials(tls.server), (err, p) => (err ? reject(err) : resolve(p))),
  );
  const EchoClient = makeGenericClientConstructor(ECHO, 'Echo');
  const options = { ...GRPC_OPTIONS, 'grpc.ssl_target_name_override': tls.serverIdentity };
  const client = new EchoClient(`127.0.0.1:${port}`, channelCredentials(tls.client, tls.serverIdentity), options) as unknown as {
    echo(request: Buffer, done: (err: ServiceError | null, reply: Buffer) => void): void;
    pipe(): ClientDuplexStream<Buffer, Buffer>;
    close(): void;
  };
  const payload = Buffer.alloc(16, 1);
  const pipe = client.pipe();
  const answered: (() => void)[] = [];
  pipe.on('data', () => answered.shift()?.());
  try {
    const unary = await measureCalls(
      calls,
      () => new Promise<void>((resolve, reject) => client.echo(payload, (err) => (err ? reject(err) : resolve()))),
    );
    const onStream = await measureCalls(calls, () => new Promise<void>((resolve) => (answered.push(resolve), pipe.write(payload))));
    return { ...unary, onStream };
  } finally {
    pipe.end();
    client.close();
    server.forceShutdown();
  }
}
