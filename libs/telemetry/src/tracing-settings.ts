import { Env } from './env';

/**
 * Whether this process traces: only when an OTLP endpoint is configured (the standard
 * OTEL_EXPORTER_OTLP_ENDPOINT, or its traces-only form), and neither OTEL_SDK_DISABLED nor
 * OTEL_TRACES_EXPORTER=none says otherwise. Off, nothing of OpenTelemetry is loaded.
 */
export function tracingWanted(env: Env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint?.trim()) return false;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() !== 'none';
}

/**
 * The environment the SDK reads, with this gateway's defaults where a variable is unset: the
 * service's own name, and no OTLP metrics or logs (metrics are Prometheus', logs are stdout's).
 */
export function sdkEnvironment(env: Env, serviceName: string): Env {
  return {
    OTEL_SERVICE_NAME: serviceName,
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
    ...Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== '')),
  };
}
