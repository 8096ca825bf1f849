/** OpenTelemetry for the gateway's services: off unless the standard OTEL_* variables ask for it. */
export { startTracing, stopTracing } from './start-tracing';
export type { TracingOptions } from './start-tracing';
export {
  currentTraceCarrier,
  inLinkedSpan,
  inRpcClientSpan,
  inRpcServerSpan,
  isTracing,
  logCorrelation,
  REQUEST_ID_BAGGAGE,
  withRequestId,
} from './trace-context';
export type { TraceCarrier } from './trace-context';
export { sdkEnvironment, tracingWanted } from './tracing-settings';
export type { Env } from './env';
