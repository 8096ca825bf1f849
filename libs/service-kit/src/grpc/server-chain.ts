import { status } from '@grpc/grpc-js';
import { DomainError } from '@gw/errors';
import { inRpcServerSpan, isTracing } from '@gw/telemetry';
import { Logger } from '../process/logger';
import { histogram, LATENCY_BUCKETS } from '../process/metrics';
import { RpcContext, RpcHandler } from './rpc-methods';
import { grpcCodeOf, RpcError } from './rpc-error';

/** A step every call a server answers passes through, unary or carried on a call stream: it runs `next` (the rest of the chain, then the handler). */
export type ServerMiddleware = (request: unknown, context: RpcContext, next: RpcHandler<unknown, unknown>) => Promise<unknown>;

/** What a call is answered with when it fails. */
export interface RpcStatus {
  code: status;
  details: string;
}

/** Every call a service answers, unary or carried on a call stream, by method name and status code. */
export const rpcDuration = histogram(
  'grpc_server_handling_seconds',
  'Time to answer a gRPC call, by method and status code.',
  ['method', 'code'],
  LATENCY_BUCKETS,
);

const OK = status[status.OK];

/**
 * The gRPC status an error is answered with: an RpcError keeps its code and message, a domain
 * refusal takes its kind's code (grpcCodeOf) and keeps its message, anything
 * else is logged and answered as INTERNAL without its text.
 */
export function rpcStatusOf(err: unknown, logger: Logger, method: string): RpcStatus {
  if (err instanceof RpcError) return { code: err.code, details: err.message };
  if (err instanceof DomainError) return { code: grpcCodeOf(err) as status, details: err.message };
  logger.error('rpc failed', { method, err });
  return { code: status.INTERNAL, details: 'internal error' };
}

/**
 * Tracing: a call carried on a call stream runs in a server span continuing the trace it carries.
 * A unary call's span is the gRPC instrumentation's, which reads its metadata (libs/telemetry).
 */
const traceCarriedCall: ServerMiddleware = (request, context, next) =>
  context.traceCarrier && isTracing()
    ? inRpcServerSpan(context.service, context.method, context.traceCarrier, () => next(request, context))
    : next(request, context);

/** Metrics and logging: each call's duration and status in `grpc_server_handling_seconds`, and a debug line. */
function observeCall(logger: Logger): ServerMiddleware {
  return (request, context, next) => {
    const { method } = context;
    const started = Date.now();
    const done = rpcDuration.startTimer({ method });
    return next(request, context).then(
      (response) => {
        done({ code: OK });
        logger.debug('call served', { method, code: OK, ms: Date.now() - started });
        return response;
      },
      (failed: RpcStatus) => {
        const code = status[failed.code];
        done({ code });
        logger.debug('call served', { method, code, ms: Date.now() - started });
        throw failed;
      },
    );
  };
}

/** Error mapping: whatever the handler throws leaves the chain as an RpcStatus (rpcStatusOf). */
function answerErrors(logger: Logger): ServerMiddleware {
  return (request, context, next) =>
    next(request, context).catch((err: unknown) => {
      throw rpcStatusOf(err, logger, context.method);
    });
}

/**
 * The chain every call of a service passes through, outermost first: tracing, metrics and
 * logging, error mapping, then the service's own steps (`inner`, nearest the handler: a
 * service's mapping of its store's failures, say). Deadlines are the context's callerGone; the
 * access check runs before a call's message is read (accessInterceptor).
 */
export function serverChain(logger: Logger, inner: ServerMiddleware[] = []): ServerMiddleware[] {
  return [traceCarriedCall, observeCall(logger), answerErrors(logger), ...inner];
}

/**
 * A handler behind the chain, composed once; each call then runs the steps in order. A handler
 * that throws before its first await fails its call as one that rejects does.
 */
export function chained<Req, Res>(chain: ServerMiddleware[], handler: RpcHandler<Req, Res>): RpcHandler<Req, Res> {
  const alwaysAsync: RpcHandler<unknown, unknown> = (request, context) => {
    try {
      return handler(request as Req, context);
    } catch (err) {
      return Promise.reject(err);
    }
  };
  return chain.reduceRight<RpcHandler<unknown, unknown>>(
    (next, step) => (request, context) => step(request, context, next),
    alwaysAsync,
  ) as RpcHandler<Req, Res>;
}
