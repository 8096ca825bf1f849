import { Attributes, context, Link, propagation, ROOT_CONTEXT, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/** W3C trace context as headers carry it (traceparent, tracestate, baggage). */
export type TraceCarrier = Record<string, string>;

/** The baggage entry that carries the edge's x-request-id to every service of the request. */
export const REQUEST_ID_BAGGAGE = 'gateway.request_id';

const TRACER = 'chat-gateway';
let tracing = false;

/** Set once by startTracing: until then every function here is a no-op that costs nothing. */
export function markTracingStarted(): void {
  tracing = true;
}

export function isTracing(): boolean {
  return tracing;
}

/** The active trace context as headers, to be stored or sent where gRPC metadata cannot carry it. */
export function currentTraceCarrier(): TraceCarrier {
  if (!tracing) return {};
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

function ended<T>(span: Span, work: Promise<T>): Promise<T> {
  return work.then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      span.end();
      throw err;
    },
  );
}

/** A gRPC call's span name and attributes, as the gRPC instrumentation gives its unary calls'. */
const rpcSpan = (service: string, method: string): [string, Attributes] => [
  `${service}/${method}`,
  { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method },
];

/**
 * The client side of a gRPC call that travels inside a message (a call stream's call): `work`
 * runs in a client span and gets the carrier to send with the call, so the server's span joins
 * the trace.
 */
export function inRpcClientSpan<T>(service: string, method: string, work: (carrier: TraceCarrier) => Promise<T>): Promise<T> {
  if (!tracing) return work({});
  const [name, attributes] = rpcSpan(service, method);
  return trace
    .getTracer(TRACER)
    .startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, (span) => ended(span, work(currentTraceCarrier())));
}

/** The server side of such a call: `work` runs in a server span continuing the trace `carrier` names. */
export function inRpcServerSpan<T>(service: string, method: string, carrier: TraceCarrier, work: () => Promise<T>): Promise<T> {
  if (!tracing) return work();
  const [name, attributes] = rpcSpan(service, method);
  const parent = propagation.extract(ROOT_CONTEXT, carrier);
  return trace.getTracer(TRACER).startActiveSpan(name, { kind: SpanKind.SERVER, attributes }, parent, (span) => ended(span, work()));
}

/**
 * Work done later for requests of other traces (a batch of bills from the outbox): a trace of its
 * own whose span links to each request's span, so either leads to the other.
 */
export function inLinkedSpan<T>(name: string, attributes: Attributes, carriers: TraceCarrier[], work: () => Promise<T>): Promise<T> {
  if (!tracing) return work();
  const links: Link[] = [];
  for (const carrier of carriers) {
    const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier));
    if (spanContext && trace.isSpanContextValid(spanContext)) links.push({ context: spanContext });
  }
  return trace
    .getTracer(TRACER)
    .startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes, links, root: true }, (span) => ended(span, work()));
}

/**
 * Runs `fn` with the request id in the context's baggage (and on the active span), so that every
 * hop of the request, in every service, knows it.
 */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  if (!tracing) return fn();
  const active = context.active();
  trace.getSpan(active)?.setAttribute(REQUEST_ID_BAGGAGE, requestId);
  const baggage = (propagation.getBaggage(active) ?? propagation.createBaggage()).setEntry(REQUEST_ID_BAGGAGE, { value: requestId });
  return context.with(propagation.setBaggage(active, baggage), fn);
}

/** The trace and request a log line written now belongs to, when tracing. */
export function logCorrelation(): { traceId?: string; spanId?: string; requestId?: string } {
  if (!tracing) return {};
  const active = context.active();
  const spanContext = trace.getSpanContext(active);
  const requestId = propagation.getBaggage(active)?.getEntry(REQUEST_ID_BAGGAGE)?.value;
  return {
    ...(spanContext && trace.isSpanContextValid(spanContext) ? { traceId: spanContext.traceId, spanId: spanContext.spanId } : {}),
    ...(requestId ? { requestId } : {}),
  };
}
