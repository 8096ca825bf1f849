import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { waitReady } from '@gw/service-kit';
import { freePort, OtlpReceiver, ReceivedExport, repoRoot } from '@gw/testing';

const PROVIDER_SIM = join(repoRoot(), 'dist', 'apps', 'provider-sim', 'main.js');

/**
 * Tracing is configured by the standard OTEL_* variables alone: a service exports its spans over
 * each value of OTEL_EXPORTER_OTLP_PROTOCOL, and sends nothing when no endpoint is set.
 */
describe('OTLP export, as the OTEL_* variables say', () => {
  let receiver: OtlpReceiver;
  let running: ChildProcess | undefined;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
  });
  afterEach(() => {
    running?.kill('SIGKILL');
    running = undefined;
  });
  afterAll(() => receiver.stop());

  /** provider-sim (traced like every service) with `env`, answering one chat request, then stopped. */
  async function oneRequest(env: Record<string, string>): Promise<number | null> {
    const port = await freePort();
    const sim = spawn(process.execPath, [PROVIDER_SIM], {
      env: { PATH: process.env.PATH, PROVIDER_SIM_PORT: String(port), OTEL_BSP_SCHEDULE_DELAY: '100', ...env },
      stdio: 'ignore',
    });
    running = sim;
    await waitReady({ url: `http://127.0.0.1:${port}/healthz` }, 10_000, () => sim.exitCode === null);
    const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const exited = new Promise<number | null>((resolve) => sim.once('exit', resolve));
    sim.kill('SIGTERM');
    return exited;
  }

  const exportsOver = (protocol: ReceivedExport['protocol']) => receiver.exports.filter((e) => e.protocol === protocol);

  it.each([
    ['grpc', () => receiver.grpcEndpoint],
    ['http/protobuf', () => receiver.httpEndpoint],
    ['http/json', () => receiver.httpEndpoint],
  ] as const)(
    'exports over %s, and sends what it holds as it stops',
    async (protocol, endpoint) => {
      expect(await oneRequest({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint(), OTEL_EXPORTER_OTLP_PROTOCOL: protocol })).toBe(0);
      expect(exportsOver(protocol).length).toBeGreaterThan(0);
      expect(exportsOver(protocol).every((e) => e.bytes > 0)).toBe(true);
      if (protocol === 'http/json') expect(receiver.spans.some((s) => s.service === 'provider-sim' && s.name === 'POST')).toBe(true);
    },
    30_000,
  );

  it('names the service as OTEL_SERVICE_NAME says, and samples as OTEL_TRACES_SAMPLER says', async () => {
    const before = receiver.spans.length;
    await oneRequest({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.httpEndpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'sim-renamed',
    });
    expect(receiver.spans.slice(before).map((s) => s.service)).toContain('sim-renamed');
    const exports = receiver.exports.length;
    await oneRequest({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.httpEndpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'always_off',
    });
    expect(receiver.exports.length).toBe(exports);
  }, 30_000);

  it('sends nothing without an endpoint, or when OTEL_SDK_DISABLED is true', async () => {
    const exports = receiver.exports.length;
    expect(await oneRequest({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe(0);
    expect(await oneRequest({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.httpEndpoint, OTEL_SDK_DISABLED: 'true' })).toBe(0);
    expect(receiver.exports.length).toBe(exports);
  }, 30_000);
});
