import { cpus } from 'node:os';

/** Everything one run measured. */
export interface BenchResults {
  date: string;
  machine: string;
  rates: { rate: number; gateway: Percentiles; direct: Percentiles }[];
  saturation: { gatewayRps: number; directRps: number; gatewayErrors: number };
  streams: { addedTtfbP50Ms: number; addedPieceGapP50Ms: number; gatewayTtfbP50Ms: number; directTtfbP50Ms: number };
  openStreams: { opened: number; kbPerStream: number };
  cpuMsPerRequest: Record<string, number>;
  /** One grpc-js unary call on loopback, client and server in one process: the floor under each hop. */
  grpcCall: { p50Ms: number; cpuMsPerCall: number };
}

/** Latency percentiles in ms, and the requests that failed. */
export interface Percentiles {
  p50: number;
  p99: number;
  p999: number;
  count: number;
  errors: number;
}

/** The machine in one line: cores, CPU model, Node version. */
export function describeMachine(): string {
  return `${cpus().length} cores, ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`;
}

const f = (n: number) => n.toFixed(3);

/** The Markdown table of a run, with the targets of issue 8 beside the figures. */
export function markdownReport(r: BenchResults): string {
  const at500 = r.rates.find((x) => x.rate === 500);
  const lines = [
    `Benchmark of ${r.date} on ${r.machine} (everything on this machine; provider-sim answering at once).`,
    '',
    '| paid, non-streamed, open loop | gateway p50 / p99 / p99.9 (ms) | direct p50 / p99 / p99.9 (ms) | added p50 / p99 / p99.9 (ms) | errors |',
    '|---|---|---|---|---|',
    ...r.rates.map(
      (x) =>
        `| ${x.rate} req/s | ${f(x.gateway.p50)} / ${f(x.gateway.p99)} / ${f(x.gateway.p999)} | ${f(x.direct.p50)} / ${f(x.direct.p99)} / ${f(x.direct.p999)} | ` +
        `${f(x.gateway.p50 - x.direct.p50)} / ${f(x.gateway.p99 - x.direct.p99)} / ${f(x.gateway.p999 - x.direct.p999)} | ${x.gateway.errors} |`,
    ),
    '',
    '| measure | result | target |',
    '|---|---|---|',
    `| added p50 at 500 req/s | ${at500 ? f(at500.gateway.p50 - at500.direct.p50) : '-'} ms | <= 1 ms |`,
    `| added p99 at 500 req/s | ${at500 ? f(at500.gateway.p99 - at500.direct.p99) : '-'} ms | <= 3 ms |`,
    `| saturation, paid path (closed loop) | ${r.saturation.gatewayRps.toFixed(0)} req/s (direct ${r.saturation.directRps.toFixed(0)}) | >= 1,000 req/s |`,
    `| added time to first byte of a stream, p50 | ${f(r.streams.addedTtfbP50Ms)} ms | <= 2 ms |`,
    `| added delay per piece, p50 | ${f(r.streams.addedPieceGapP50Ms)} ms | <= 0.2 ms |`,
    `| edge memory per open stream (${r.openStreams.opened} open) | ${r.openStreams.kbPerStream.toFixed(1)} KB | <= 100 KB |`,
    '',
    '| CPU time per request (ms), at 500 req/s | ' + Object.keys(r.cpuMsPerRequest).join(' | ') + ' | all |',
    '|---|' + Object.keys(r.cpuMsPerRequest).map(() => '---|').join('') + '---|',
    '| | ' + Object.values(r.cpuMsPerRequest).map((v) => v.toFixed(3)).join(' | ') + ` | ${f(Object.values(r.cpuMsPerRequest).reduce((a, b) => a + b, 0))} |`,
    '',
    `On ${cpus().length} cores, "all" above ${cpus().length} ms per request caps the throughput below 1,000 req/s.`,
    `One grpc-js unary call alone on loopback (client and server in one process) takes ${f(r.grpcCall.p50Ms)} ms at p50 and ` +
      `${f(r.grpcCall.cpuMsPerCall)} ms of CPU; a paid request makes 4 such calls in a row before the provider is called.`,
    '',
    'Chart `latency.png`: latency (ms, y) against rate (req/s, x); blue gateway p50, red gateway p99, green direct p50, orange direct p99.',
  ];
  return `${lines.join('\n')}\n`;
}
