import { cpus } from 'node:os';
import type { ClusterSpread } from './cluster-spread-run';
import type { PhasePauses } from './process-pauses';
import type { StoreCounts } from './store-counts';

/** Everything one run measured. */
export interface BenchResults {
  date: string;
  machine: string;
  rates: { rate: number; gateway: Percentiles; direct: Percentiles }[];
  /** Closed loop, 64 in flight: the gateway, provider-sim directly and the floor proxy. */
  saturation: { gatewayRps: number; directRps: number; floorRps: number; gatewayErrors: number; floorErrors: number };
  streams: {
    addedTtfbP50Ms: number;
    addedPieceGapP50Ms: number;
    gatewayTtfbP50Ms: number;
    directTtfbP50Ms: number;
    /** The floor proxy's time to first byte over provider-sim's. */
    floorAddedTtfbP50Ms: number;
  };
  openStreams: { opened: number; kbPerStream: number };
  cpuMsPerRequest: Record<string, number>;
  /** The floor proxy (no accounting) measured like the gateway: open loop, and its CPU per request at 500 req/s. */
  floor: { rates: { rate: number; floor: Percentiles; direct: Percentiles }[]; cpuMsPerRequest: number };
  /** Store work per paid request at 500 req/s. */
  storesPerRequest: StoreCounts;
  /** Event-loop delay and GC pauses of each service during the gateway's 500 req/s phase, and of the floor proxy during its own. */
  pausesAt500: Record<string, PhasePauses>;
  /** Redis commands per second, by command, of the stack with no load. */
  idleRedis: { seconds: number; commandsPerSecond: Record<string, number> };
  /** The second load shape: 20 accounts with their limits raised, 500 req/s. */
  hotAccounts: { gateway: Percentiles; direct: Percentiles } | undefined;
  /** The third load shape: 3,000 accounts on a Redis Cluster of 3 masters, 500 req/s. */
  clusterSpread: ClusterSpread | undefined;
  /** One grpc-js unary call on loopback, client and server in one process: the floor under each hop. */
  grpcCall: { p50Ms: number; cpuMsPerCall: number; onStream: { p50Ms: number; cpuMsPerCall: number } };
  redisCall: { p50Ms: number; cpuMsPerCall: number; redisCpuMsPerCall: number };
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

const sumOf = (rates: Record<string, number>) => Object.values(rates).reduce((a, b) => a + b, 0);
/** The six busiest commands of a by-command rate list (busiest first), as `command rate` pairs. */
const busiest = (rates: Record<string, number>) =>
  Object.entries(rates)
    .slice(0, 6)
    .map(([command, rate]) => `${command} ${rate.toFixed(1)}`)
    .join(', ') || 'none';

/** The Redis Cluster run: each master's share of the commands, and what one master carries. */
function clusterLines(c: ClusterSpread | undefined): string[] {
  if (!c) return [];
  return [
    '',
    `On a Redis Cluster of ${c.masters.length} masters (a replica each), ${c.accounts.toLocaleString('en')} accounts, 500 paid req/s (${c.requests} requests, ${c.errors} errors): ` +
      `${c.commandsPerRequest.toFixed(1)} commands run and ${c.roundTripsPerRequest.toFixed(2)} round trips per paid request; ` +
      `the busiest master ran ${c.maxOverMean.toFixed(2)}× the mean of the commands, the idlest ${c.minOverMean.toFixed(2)}× (target: within 1.5×). ` +
      `With no load after the run, the masters ran ${sumOf(c.idleCommandsPerSecond).toFixed(1)} commands a second in all (target: none when no background pass has work): ${busiest(c.idleCommandsPerSecond)}. ` +
      `The masters spent ${f(c.redisCpuMsPerRequest)} ms of CPU per paid request in all: one master (one core) carries about ${Math.floor(1000 / c.redisCpuMsPerRequest).toLocaleString('en')} paid requests/s, and each added master as much again.`,
    '',
    '| master | commands | CPU ms |',
    '|---|---|---|',
    ...c.masters.map((m) => `| ${m.node} | ${m.commands} | ${m.cpuMs.toFixed(0)} |`),
  ];
}

/** Event-loop delay and GC pauses of each process during its 500 req/s phase, the floor proxy last. */
function pauseLines(pauses: Record<string, PhasePauses>): string[] {
  const rows = Object.entries(pauses).sort(([a], [b]) => Number(a === 'floor proxy') - Number(b === 'floor proxy'));
  return [
    '| 500 req/s phase | event-loop delay p99 / max (ms) | GC pauses | GC total (ms) | longest GC pause (ms) | GC per request (ms) |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      ([name, p]) =>
        `| ${name} | ${p.loopDelayP99Ms.toFixed(1)} / ${p.loopDelayMaxMs.toFixed(1)} | ${p.gcPauses} | ${p.gcTotalMs.toFixed(1)} | ` +
        `${p.gcMaxMs.toFixed(2)} | ${(p.gcTotalMs / Math.max(1, p.requests)).toFixed(3)} |`,
    ),
    '',
    'Event-loop delay as perf_hooks.monitorEventLoopDelay samples it every 10 ms (the p99 of those samples, not of requests), ' +
      'read by each service (its /metrics) and by the floor proxy; every GC pause counted (a PerformanceObserver), in wall time, ' +
      'so a pause during which the machine ran another process counts whole.',
  ];
}

/** The Markdown report of a run, with the targets of issues 23 and 35 beside the figures. */
export function markdownReport(r: BenchResults): string {
  const at500 = r.rates.find((x) => x.rate === 500);
  const at200 = r.rates.find((x) => x.rate === 200);
  const floorAt500 = r.floor.rates.find((x) => x.rate === 500);
  const STACK = ['edge', 'auth-service', 'quota-service', 'billing-service', 'postgres', 'redis'];
  const stackCpu = STACK.reduce((sum, name) => sum + (r.cpuMsPerRequest[name] ?? 0), 0);
  const added = (x: { direct: Percentiles }, p: 'p50' | 'p99', own: Percentiles) => own[p] - x.direct[p];
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(1)}×` : '-');
  const ratio2 = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : '-');
  const floorCpu = r.floor.cpuMsPerRequest;
  const cpuOf = (name: string) => r.cpuMsPerRequest[name] ?? 0;
  const floorAt200 = r.floor.rates.find((x) => x.rate === 200);
  const gatewayAdded200 = at200 ? added(at200, 'p50', at200.gateway) : NaN;
  const floorAdded200 = floorAt200 ? added(floorAt200, 'p50', floorAt200.floor) : NaN;
  const idleCommands = sumOf(r.idleRedis.commandsPerSecond);
  const idleBusiest = busiest(r.idleRedis.commandsPerSecond);
  const gatewayAdded50 = at500 ? added(at500, 'p50', at500.gateway) : NaN;
  const floorAdded50 = floorAt500 ? added(floorAt500, 'p50', floorAt500.floor) : NaN;
  const s = r.storesPerRequest;
  const perCore = (ms: number | undefined) => (ms ? Math.floor(1000 / ms).toLocaleString('en') : '-');
  const hot = r.hotAccounts;
  const lines = [
    `Benchmark of ${r.date} on ${r.machine} (everything on this machine; provider-sim answering at once; every gRPC hop mutual TLS).`,
    '',
    `**CPU per paid request of the stack (edge, auth-, quota-, billing-service, Postgres, Redis) at 500 req/s: ${f(stackCpu)} ms; ` +
      `the floor proxy: ${f(r.floor.cpuMsPerRequest)} ms; gateway ÷ floor: ${ratio(stackCpu, r.floor.cpuMsPerRequest)}.** ` +
      `Added latency at 500 req/s, p50: gateway ${f(gatewayAdded50)} ms, floor ${f(floorAdded50)} ms (${ratio(gatewayAdded50, floorAdded50)}).`,
    '',
    '| paid, non-streamed, open loop | gateway p50 / p99 / p99.9 (ms) | direct p50 / p99 / p99.9 (ms) | added p50 / p99 / p99.9 (ms) | errors |',
    '|---|---|---|---|---|',
    ...r.rates.map(
      (x) =>
        `| ${x.rate} req/s | ${f(x.gateway.p50)} / ${f(x.gateway.p99)} / ${f(x.gateway.p999)} | ${f(x.direct.p50)} / ${f(x.direct.p99)} / ${f(x.direct.p999)} | ` +
        `${f(x.gateway.p50 - x.direct.p50)} / ${f(x.gateway.p99 - x.direct.p99)} / ${f(x.gateway.p999 - x.direct.p999)} | ${x.gateway.errors} |`,
    ),
    '',
    '| floor proxy (node:http + undici, JSON parsed and written again), open loop | floor p50 / p99 / p99.9 (ms) | added p50 / p99 (ms) | errors |',
    '|---|---|---|---|',
    ...r.floor.rates.map(
      (x) =>
        `| ${x.rate} req/s | ${f(x.floor.p50)} / ${f(x.floor.p99)} / ${f(x.floor.p999)} | ${f(added(x, 'p50', x.floor))} / ${f(added(x, 'p99', x.floor))} | ${x.floor.errors} |`,
    ),
    '',
    '| 500 req/s, paid | gateway p50 / p99 (ms) | added p50 / p99 (ms) | errors |',
    '|---|---|---|---|',
    at500
      ? `| 3,000 accounts | ${f(at500.gateway.p50)} / ${f(at500.gateway.p99)} | ${f(added(at500, 'p50', at500.gateway))} / ${f(added(at500, 'p99', at500.gateway))} | ${at500.gateway.errors} |`
      : '| 3,000 accounts | - | - | - |',
    hot
      ? `| 20 accounts, limits raised (many requests of one account in flight) | ${f(hot.gateway.p50)} / ${f(hot.gateway.p99)} | ${f(added(hot, 'p50', hot.gateway))} / ${f(added(hot, 'p99', hot.gateway))} | ${hot.gateway.errors} |`
      : '| 20 accounts | - | - | - |',
    '',
    `Per paid request at 500 req/s: ${s.pgTransactions.toFixed(2)} Postgres transactions and ${s.pgStatements.toFixed(2)} statements (BEGIN and COMMIT included), ` +
      `${s.redisRoundTrips.toFixed(2)} Redis commands sent by the services (round trips) and ${s.redisCommands.toFixed(2)} run by Redis (those its scripts run counted too). At this run's CPU per request, one Postgres core carries about ${perCore(r.cpuMsPerRequest.postgres)} paid requests/s ` +
      `and Redis (one thread) about ${perCore(r.cpuMsPerRequest.redis)}.`,
    '',
    'CPU per paid request at 500 req/s against the floor proxy in this run:',
    '',
    '| ratio, this run | result | target |',
    '|---|---|---|',
    `| stack (edge, auth-, quota-, billing-service, Postgres, Redis) ÷ floor proxy | ${ratio2(stackCpu, floorCpu)} (${f(stackCpu)} / ${f(floorCpu)} ms) | <= 3× |`,
    `| edge ÷ floor proxy | ${ratio2(cpuOf('edge'), floorCpu)} (${f(cpuOf('edge'))} ms) | <= 1.6× |`,
    `| quota-service ÷ floor proxy | ${ratio2(cpuOf('quota-service'), floorCpu)} (${f(cpuOf('quota-service'))} ms) | <= 0.6× |`,
    `| Redis ÷ floor proxy | ${ratio2(cpuOf('redis'), floorCpu)} (${f(cpuOf('redis'))} ms) | <= 0.3× |`,
    `| saturation (closed loop, 64 in flight): gateway as a share of the floor proxy | ${r.saturation.floorRps > 0 ? `${((100 * r.saturation.gatewayRps) / r.saturation.floorRps).toFixed(0)}%` : '-'} (${r.saturation.gatewayRps.toFixed(0)} / ${r.saturation.floorRps.toFixed(0)} req/s) | reported |`,
    `| added time to first byte of a stream, p50: gateway ÷ floor proxy | ${ratio(r.streams.addedTtfbP50Ms, r.streams.floorAddedTtfbP50Ms)} (${f(r.streams.addedTtfbP50Ms)} / ${f(r.streams.floorAddedTtfbP50Ms)} ms) | reported |`,
    `| added p50 at 200 req/s: gateway ÷ floor proxy | ${ratio(gatewayAdded200, floorAdded200)} (${f(gatewayAdded200)} / ${f(floorAdded200)} ms) | reported |`,
    `| Redis commands a second, idle stack (${r.idleRedis.seconds} s with no load) | ${idleCommands.toFixed(1)} | 0 when no pass has work |`,
    '',
    `Idle stack, Redis commands a second, busiest first: ${idleBusiest || 'none'}.`,
    '',
    ...pauseLines(r.pausesAt500),
    '',
    '| measure | result | target |',
    '|---|---|---|',
    `| added p50 / p99 at 500 req/s | ${at500 ? `${f(added(at500, 'p50', at500.gateway))} / ${f(added(at500, 'p99', at500.gateway))}` : '-'} ms | <= 1.5 / <= 5 ms |`,
    `| added p50 / p99 at 200 req/s | ${at200 ? `${f(added(at200, 'p50', at200.gateway))} / ${f(added(at200, 'p99', at200.gateway))}` : '-'} ms | <= 1.0 / <= 3 ms |`,
    `| saturation, paid path (closed loop) | ${r.saturation.gatewayRps.toFixed(0)} req/s (direct ${r.saturation.directRps.toFixed(0)}, floor proxy ${r.saturation.floorRps.toFixed(0)}) | >= 1,800 req/s |`,
    `| added time to first byte of a stream, p50 | ${f(r.streams.addedTtfbP50Ms)} ms | <= 1.2 ms |`,
    `| Redis round trips / Postgres transactions per paid request | ${s.redisRoundTrips.toFixed(2)} / ${s.pgTransactions.toFixed(3)} | <= 2 / <= 0.05 |`,
    `| added delay per piece, p50 | ${f(r.streams.addedPieceGapP50Ms)} ms | <= 0.2 ms |`,
    `| edge memory per open stream (${r.openStreams.opened} open) | ${r.openStreams.kbPerStream.toFixed(1)} KB | <= 100 KB |`,
    '',
    '| CPU time per request (ms), at 500 req/s | ' + Object.keys(r.cpuMsPerRequest).join(' | ') + ' | all |',
    '|---|' +
      Object.keys(r.cpuMsPerRequest)
        .map(() => '---|')
        .join('') +
      '---|',
    '| | ' +
      Object.values(r.cpuMsPerRequest)
        .map((v) => v.toFixed(3))
        .join(' | ') +
      ` | ${f(Object.values(r.cpuMsPerRequest).reduce((a, b) => a + b, 0))} |`,
    '',
    `On ${cpus().length} cores, "all" above ${cpus().length} ms per request caps the throughput below 1,000 req/s.`,
    `One grpc-js unary call alone on loopback with mutual TLS (client and server in one process) takes ${f(r.grpcCall.p50Ms)} ms at p50 and ` +
      `${f(r.grpcCall.cpuMsPerCall)} ms of CPU; a message answered on an open stream ${f(r.grpcCall.onStream.p50Ms)} ms and ${f(r.grpcCall.onStream.cpuMsPerCall)} ms. ` +
      'A paid request makes one call before the provider is called (Admit) and one after it (FinishRequest), each a message on a call stream; between processes each costs the wake-ups of its hops.',
    `One script call alone with ioredis on loopback (EVALSHA of a one-read script, as quota-service sends its two a paid request) takes ${f(r.redisCall.p50Ms)} ms at p50, ` +
      `${f(r.redisCall.cpuMsPerCall)} ms of the caller's CPU and ${f(r.redisCall.redisCpuMsPerCall)} ms of Redis's. ` +
      `The layout's own floor for a paid request (two stream messages, two script calls, without any work in them): ` +
      `${f(2 * r.grpcCall.onStream.cpuMsPerCall + 2 * r.redisCall.cpuMsPerCall)} ms of CPU in the edge and quota-service, ${f(2 * r.redisCall.redisCpuMsPerCall)} ms in Redis.`,
    '',
    'Chart `latency.png`: latency (ms, y) against rate (req/s, x); blue gateway p50, red gateway p99, green direct p50, orange direct p99.',
    ...clusterLines(r.clusterSpread),
  ];
  return `${lines.join('\n')}\n`;
}
