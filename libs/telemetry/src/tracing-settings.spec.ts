import { sdkEnvironment, tracingWanted } from './tracing-settings';

describe('tracingWanted', () => {
  it('is off unless an OTLP endpoint is set', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_SERVICE_NAME: 'edge' })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
  });

  it('stays off when OTEL_SDK_DISABLED is true or OTEL_TRACES_EXPORTER is none', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingWanted({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(tracingWanted({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true);
    expect(tracingWanted({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });
});

describe('sdkEnvironment', () => {
  it('names the service and leaves metrics and logs to Prometheus and stdout, unless told otherwise', () => {
    expect(sdkEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, 'edge')).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_SERVICE_NAME: 'edge',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
    });
    expect(sdkEnvironment({ OTEL_SERVICE_NAME: 'gw-edge', OTEL_METRICS_EXPORTER: 'otlp', OTEL_LOGS_EXPORTER: '' }, 'edge')).toMatchObject({
      OTEL_SERVICE_NAME: 'gw-edge',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_LOGS_EXPORTER: 'none',
    });
  });
});
