import {
  handleBidiStreamingCall,
  handleClientStreamingCall,
  handleServerStreamingCall,
  Metadata,
  MethodDefinition,
  ServiceDefinition,
} from '@grpc/grpc-js';
import { TraceCarrier } from '@gw/telemetry';

/** A generated service definition (ts-proto's `QuotaService`): method key to its path, streaming flags and codecs. */
export type RpcDefinition = ServiceDefinition;

/** The keys of a definition's unary methods. */
export type UnaryKeys<D> = {
  [K in keyof D]: D[K] extends { requestStream: false; responseStream: false } ? K : never;
}[keyof D] &
  string;

/** The keys of its streaming methods. */
export type StreamKeys<D> = Exclude<keyof D & string, UnaryKeys<D>>;

export type RequestOf<M> = M extends { requestDeserialize(bytes: Buffer): infer Q } ? Q : never;
export type ResponseOf<M> = M extends { responseDeserialize(bytes: Buffer): infer R } ? R : never;

/** What a call is, for the middleware of either side: its service and method names, both read off the definition. */
export interface RpcName {
  /** `quota.v1.Quota` */
  service: string;
  /** `Admit` */
  method: string;
}

/** `/quota.v1.Quota/Admit` as its service and method names. */
export function rpcNameOf(method: Pick<MethodDefinition<unknown, unknown>, 'path'>): RpcName {
  const [, service, name] = method.path.split('/');
  return { service, method: name };
}

/** What a handler knows of the call it answers. */
export interface RpcContext extends RpcName {
  /** The call's request metadata: its verified caller (isCaller) and audit actor. */
  readonly metadata: Metadata;
  /**
   * Whether the caller cancelled or its deadline passed, read when asked: a handler that changes
   * state checks it, as the caller will never learn what it did.
   */
  callerGone(): boolean;
  /** For a call carried on a call stream, the trace context it carries (a unary call's travels in its metadata). */
  readonly traceCarrier?: TraceCarrier;
}

/** A unary method's implementation: a plain async function of the request. */
export type RpcHandler<Req, Res> = (request: Req, context: RpcContext) => Promise<Res>;

/** One handler per unary method of definition D. */
export type RpcHandlers<D> = { [K in UnaryKeys<D>]: RpcHandler<RequestOf<D[K]>, ResponseOf<D[K]>> };

/** The grpc-js handler of a streaming method, which keeps the stream's own API. */
export type StreamHandler<M> = M extends { requestStream: true; responseStream: true }
  ? handleBidiStreamingCall<RequestOf<M>, ResponseOf<M>>
  : M extends { requestStream: false; responseStream: true }
    ? handleServerStreamingCall<RequestOf<M>, ResponseOf<M>>
    : handleClientStreamingCall<RequestOf<M>, ResponseOf<M>>;

export type StreamHandlers<D> = { [K in StreamKeys<D>]: StreamHandler<D[K]> };

/** The keys of the unary methods of a definition, each with its names. */
export function unaryMethodsOf(definition: RpcDefinition): [string, RpcName][] {
  return Object.entries(definition)
    .filter(([, m]) => !m.requestStream && !m.responseStream)
    .map(([key, m]) => [key, rpcNameOf(m)]);
}
