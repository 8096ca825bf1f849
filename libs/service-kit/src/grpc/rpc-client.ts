import { ChannelCredentials, ChannelOptions, Client, Metadata, ServiceError } from '@grpc/grpc-js';
import { inRpcClientSpan, isTracing, TraceCarrier } from '@gw/telemetry';
import { CallStreamClient } from './call-stream-client';
import { grpcClient } from './grpc-channel';
import { GrpcSecurity } from './grpc-security';
import { RequestOf, ResponseOf, RpcDefinition, RpcName, rpcNameOf, UnaryKeys } from './rpc-methods';

/** What a client step knows of the call it sends. */
export interface ClientCallContext extends RpcName {
  /** The metadata a unary call sends; none given, it sends empty metadata. */
  metadata?: Metadata;
  timeoutMs: number;
  /** True for a call carried on a call stream, whose trace context travels in its message, not its metadata. */
  carried: boolean;
  /** The trace context to send with a carried call (set by the tracing step). */
  traceCarrier?: TraceCarrier;
}

export type ClientNext = (request: unknown, context: ClientCallContext) => Promise<unknown>;

/** A step every call of a client passes through, around the call itself (next). */
export type ClientMiddleware = (request: unknown, context: ClientCallContext, next: ClientNext) => Promise<unknown>;

/**
 * Tracing: a call carried on a call stream runs in a client span whose context goes in its
 * message. A unary call's span, and its metadata's trace context, are the gRPC instrumentation's.
 */
const traceCarriedCall: ClientMiddleware = (request, context, next) =>
  context.carried && isTracing()
    ? inRpcClientSpan(context.service, context.method, (traceCarrier) => next(request, { ...context, traceCarrier }))
    : next(request, context);

/** The chain of a client's calls, outermost first: tracing, then the client's own steps (the edge times its calls). */
export function clientChain(inner: ClientMiddleware[] = []): ClientMiddleware[] {
  return [traceCarriedCall, ...inner];
}

function chainedCall(chain: ClientMiddleware[], send: ClientNext): ClientNext {
  return chain.reduceRight<ClientNext>((next, step) => (request, context) => step(request, context, next), send);
}

/** How a client calls: each call's deadline unless the call gives its own, and its chain. */
export interface ClientSettings {
  timeoutMs: number;
  chain: ClientMiddleware[];
  /**
   * A call waits, up to its deadline, for a connection the channel could not make yet, instead of
   * failing UNAVAILABLE at once: for one-shot tools (ctl, the launcher) that have nothing better to
   * do; the services fail fast and let their callers retry.
   */
  waitForReady?: boolean;
}

export interface RpcCallOptions {
  timeoutMs?: number;
  metadata?: Metadata;
}

/** A unary method as a one-line call: `await quota.getUsage({ accountId })`. */
export type RpcCall<M> = (request: RequestOf<M>, options?: RpcCallOptions) => Promise<ResponseOf<M>>;
export type RpcCalls<D> = { [K in UnaryKeys<D>]: RpcCall<D[K]> };

/** A ts-proto generated client class: its service definition rides on it. */
interface GeneratedClient<C> {
  new (address: string, credentials: ChannelCredentials, options: ChannelOptions): C;
  service: RpcDefinition;
}

/** A client of one of our services: a call per unary method, and the generated client for its streams. */
export type RpcClient<C, D> = RpcCalls<D> & {
  /** The generated grpc-js client, for the service's streaming methods. */
  readonly streams: C;
  close(): void;
};

type UnaryMethod = (
  request: unknown,
  metadata: Metadata,
  options: { deadline: number },
  done: (err: ServiceError | null, response: unknown) => void,
) => unknown;

/**
 * A client of the service that `Client` (a ts-proto client class) calls, at `address`, identified
 * as grpcClient does: each unary method of its definition becomes a one-line call with a deadline,
 * through `settings.chain`; method names come from the definition.
 */
export function rpcClient<C extends Client, D extends RpcDefinition>(
  Client: GeneratedClient<C> & { service: D },
  address: string,
  security: GrpcSecurity,
  serverIdentity: string,
  settings: ClientSettings,
): RpcClient<C, D> {
  const grpc = grpcClient(Client, address, security, serverIdentity);
  const calls: Record<string, unknown> = {
    streams: grpc,
    close: () => grpc.close(),
  };
  for (const [key, method] of Object.entries(Client.service)) {
    if (method.requestStream || method.responseStream) continue;
    // Through the generated method, which the gRPC instrumentation wraps (its span and metadata).
    const unary = (grpc as unknown as Record<string, UnaryMethod>)[key].bind(grpc);
    const send: ClientNext = (request, context) =>
      new Promise((resolve, reject) => {
        const metadata = context.metadata ?? new Metadata();
        if (settings.waitForReady) metadata.setOptions({ waitForReady: true });
        unary(request, metadata, { deadline: Date.now() + context.timeoutMs }, (err, response) => (err ? reject(err) : resolve(response)));
      });
    calls[key] = callerOf(rpcNameOf(method), chainedCall(settings.chain, send), settings.timeoutMs, false);
  }
  return calls as RpcClient<C, D>;
}

function callerOf(name: RpcName, run: ClientNext, timeoutMs: number, carried: boolean) {
  return (request: unknown, options?: RpcCallOptions) =>
    run(request, { ...name, metadata: options?.metadata, timeoutMs: options?.timeoutMs ?? timeoutMs, carried });
}

/**
 * The client's side of a call stream's messages: how a unary method's call is wrapped into one,
 * and its answer unwrapped. The server's side is CallDispatching.
 */
export interface CallWrapping<Q, A> {
  wrap(key: string, request: unknown): Q;
  unwrap(key: string, answer: A): unknown;
}

type Oneof = { $case: string; value: unknown } | undefined;

/** A oneof call stream (quota.v1 EdgeCall): the method's key is its case. */
export function oneofWrapping<Q, A>(): CallWrapping<Q, A> {
  return {
    wrap: (key, request) => ({ $case: key, value: request }) as Q,
    unwrap: (key, answer) => {
      const oneof = answer as Oneof;
      if (oneof?.$case !== key) throw new Error(`answered ${key} with ${oneof?.$case ?? 'nothing'}`);
      return oneof.value;
    },
  };
}

/** A stream whose calls all stand for one method (billing.v1 AuthorizeCall). */
export function oneMethodWrapping<Q, A>(): CallWrapping<Q, A> {
  return { wrap: (_key, request) => request as Q, unwrap: (_key, answer) => answer };
}

/**
 * The unary methods `keys` of `definition` as calls carried on `streams`, through the same chain
 * as the client's unary calls: `edgeCalls.admit(request)`.
 */
export function carriedCalls<D extends RpcDefinition, K extends UnaryKeys<D>, Q, A>(
  definition: D,
  keys: readonly K[],
  streams: CallStreamClient<Q, A>,
  wrapping: CallWrapping<Q, A>,
  settings: ClientSettings,
): Pick<RpcCalls<D>, K> {
  const calls: Record<string, unknown> = {};
  for (const key of keys) {
    const send: ClientNext = (request, context) =>
      streams.call(wrapping.wrap(key, request), context.timeoutMs, context.traceCarrier).then((answer) => wrapping.unwrap(key, answer));
    calls[key] = callerOf(rpcNameOf(definition[key]), chainedCall(settings.chain, send), settings.timeoutMs, true);
  }
  return calls as Pick<RpcCalls<D>, K>;
}
