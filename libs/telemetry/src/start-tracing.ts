import type { Context, TextMapGetter, TextMapPropagator, TextMapSetter } from '@opentelemetry/api';
import { markTracingStarted } from './trace-context';
import { sdkEnvironment, tracingWanted } from './tracing-settings';

/** Where a service's traces start. */
export interface TracingOptions {
  /**
   * False for a public endpoint (the edge): a caller's traceparent is never continued, so no
   * caller picks the trace id of our work; the trace starts at the edge.
   */
  continueIncomingTraces: boolean;
}

/** Calls that are not requests: probes, scrapes, and the long-lived streams whose calls have spans of their own. */
const UNTRACED_PATHS = new Set(['/metrics', '/healthz', '/readyz', '/livez']);
const UNTRACED_GRPC_METHODS = ['EdgeCalls', 'AuthorizeCalls', 'WatchIdentityChanges', 'Check', 'Watch'];

let shutdown: (() => Promise<void>) | undefined;

/** W3C trace context and baggage out; nothing in. */
function outgoingOnly(w3c: TextMapPropagator): TextMapPropagator {
  return {
    inject: (context: Context, carrier: unknown, setter: TextMapSetter) => w3c.inject(context, carrier, setter),
    extract: (context: Context, _carrier: unknown, _getter: TextMapGetter) => context,
    fields: () => w3c.fields(),
  };
}

/**
 * Starts OpenTelemetry tracing for this process when the standard OTEL_* variables ask for it (see
 * tracingWanted): spans of the HTTP server and clients (undici too), gRPC, PostgreSQL and Redis,
 * exported over OTLP as OTEL_EXPORTER_OTLP_PROTOCOL says (grpc, http/protobuf or http/json),
 * sampled as OTEL_TRACES_SAMPLER says. It must run before the instrumented packages are loaded:
 * each app's main.ts imports its tracing.ts first. Off, it loads nothing.
 */
export function startTracing(serviceName: string, options: TracingOptions): void {
  if (shutdown || !tracingWanted(process.env)) return;
  Object.assign(process.env, sdkEnvironment(process.env, serviceName));
  // Loaded here, synchronously, so that nothing of the SDK is in memory when tracing is off, and
  // before the packages it instruments are.
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } =
    require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { UndiciInstrumentation } =
    require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  const { GrpcInstrumentation } = require('@opentelemetry/instrumentation-grpc') as typeof import('@opentelemetry/instrumentation-grpc');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');

  const w3c = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
  const sdk = new NodeSDK({
    textMapPropagator: options.continueIncomingTraces ? w3c : outgoingOnly(w3c),
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]) }),
      new UndiciInstrumentation(),
      new GrpcInstrumentation({ ignoreGrpcMethods: UNTRACED_GRPC_METHODS }),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  markTracingStarted();
  shutdown = () => sdk.shutdown();
}

/** Sends the spans still buffered and stops tracing; a service calls it last as it shuts down. */
export async function stopTracing(): Promise<void> {
  await shutdown?.().catch(() => undefined);
}
