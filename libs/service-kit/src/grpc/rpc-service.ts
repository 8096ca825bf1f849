import { Metadata, sendUnaryData, ServerUnaryCall, status, UntypedServiceImplementation } from '@grpc/grpc-js';
import { TraceCarrier } from '@gw/telemetry';
import { RpcDefinition, RpcHandler, RpcHandlers, RpcName, rpcNameOf, StreamHandlers, unaryMethodsOf } from './rpc-methods';
import { RpcError } from './rpc-error';
import { chained, RpcStatus, ServerMiddleware } from './server-chain';
import { ServedService } from './grpc-server';

/** A call that arrived on a call stream, to be served as its unary method would be. */
export interface CarriedCall {
  metadata: Metadata;
  callerGone(): boolean;
  traceCarrier: TraceCarrier;
}

/** A service's unary methods, each behind the chain, by method key: for grpc-js, and for the calls its call streams carry. */
export class ChainedMethods {
  private readonly methods = new Map<string, { name: RpcName; run: RpcHandler<unknown, unknown> }>();
  readonly service: string;

  /** `handlers` by method key; a method without one (in a test) is refused as a call naming none. */
  constructor(
    definition: RpcDefinition,
    handlers: Partial<Record<string, RpcHandler<never, unknown>>>,
    private readonly chain: ServerMiddleware[],
  ) {
    for (const [key, name] of unaryMethodsOf(definition)) {
      const handler = handlers[key];
      if (handler) this.methods.set(key, { name, run: chained(chain, handler as RpcHandler<unknown, unknown>) });
    }
    this.service = rpcNameOf(Object.values(definition)[0]).service;
  }

  /** The grpc-js handlers of the unary methods: the request and a context in, the response or an RpcStatus out. */
  unaryImplementation(): UntypedServiceImplementation {
    const implementation: UntypedServiceImplementation = {};
    for (const [key, { name, run }] of this.methods) {
      implementation[key] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
        const context = { ...name, metadata: call.metadata, callerGone: () => call.cancelled };
        run(call.request, context).then(
          (response) => callback(null, response),
          (failed: RpcStatus) => callback(failed),
        );
      };
    }
    return implementation;
  }

  /**
   * Serves a call carried on the call stream `streamMethod` as the unary method `key` would be
   * served, through the same chain; a call naming no method is refused INVALID_ARGUMENT under
   * the stream's name.
   */
  serve(streamMethod: string, key: string | undefined, request: unknown, call: CarriedCall): Promise<unknown> {
    const method = key === undefined ? undefined : this.methods.get(key);
    const { metadata, callerGone, traceCarrier } = call;
    const context = { service: this.service, method: method?.name.method ?? streamMethod, metadata, callerGone, traceCarrier };
    return method ? method.run(request, context) : chained(this.chain, refuseCallWithoutRequest)(request, context);
  }
}

/** The answer to a carried call that names no method. An older quota-service gives it to an Admit it cannot decode, and the edge reads it as a call not run (apps/edge/src/admission/chat-admission.ts). */
const refuseCallWithoutRequest = (): Promise<never> => Promise.reject(new RpcError(status.INVALID_ARGUMENT, 'a call without a request'));

/**
 * A service to serve: its unary methods are `handlers`, plain async functions of the request
 * and its context, each behind `chain`; its streaming methods are grpc-js handlers made by
 * `streams`, which gets the chained methods for the calls its call streams carry.
 */
export function rpcService<D extends RpcDefinition>(
  definition: D,
  handlers: RpcHandlers<D>,
  chain: ServerMiddleware[],
  streams?: (methods: ChainedMethods) => StreamHandlers<D>,
): ServedService {
  const methods = new ChainedMethods(definition, handlers as Record<string, RpcHandler<never, unknown>>, chain);
  return {
    name: methods.service,
    definition,
    implementation: { ...methods.unaryImplementation(), ...(streams?.(methods) as UntypedServiceImplementation | undefined) },
  };
}
