import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Redis from 'ioredis';
import { startStack } from '@gw/test-stack';
import { createTestDatabase, startOwnRedisServer } from '@gw/testing';
import { AccountPool } from './account-pool';
import { BenchResults, describeMachine, markdownReport, Percentiles } from './bench-report';
import { startFloorProxy } from './floor-process';
import { firstPaidRequests } from './first-paid-requests';
import { grpcCallFloor } from './grpc-call-floor';
import { redisCallFloor } from './redis-call-floor';
import { hotAccountsRun } from './hot-accounts-run';
import { LatencyHistogram } from './latency-histogram';
import { writeLatencyChart } from './latency-chart';
import { closedLoop, openLoop } from './open-loop';
import { clusterSpreadRun } from './cluster-spread-run';
import { memoryPerOpenStream } from './open-streams';
import { PauseReading, PhasePauses, pausesBetween, readServicePauses } from './process-pauses';
import { childPids, cpuSeconds, postgresPids } from './process-stats';
import { commandsPerSecond, perRequest as perRequestCounts, StoreCounter, StoreCounts } from './store-counts';
import { warningsByMessage } from './stack-warnings';
import { streamTiming } from './stream-timing';
import { Target, targetPool } from './target';

// `npm run bench -- --quick`: 2 s a phase and only the first load shape, to try the bench itself; its figures are rough.
const QUICK = process.argv.includes('--quick');
const RATES = [200, 500, 1000];
/** The floor proxy is measured where the gateway's targets are: 200 and 500 req/s. */
const FLOOR_RATES = [200, 500];
const SECONDS_PER_RATE = QUICK ? 2 : 8;
/** A stack with no load: after this long without requests, its Redis commands are counted for IDLE_SECONDS. */
const SETTLE_SECONDS = 2;
const IDLE_SECONDS = 5;
/** The services whose pauses are read from their /metrics around the 500 req/s phase. */
const SERVICES = ['edge', 'auth-service', 'quota-service', 'billing-service'] as const;
const RESULTS = join(__dirname, '..', '..', 'bench', 'results');
const PAID = JSON.stringify({ model: 'vendor-v4-flash', max_tokens: 16, messages: [{ role: 'user', content: 'Hello there' }] });
const STREAM = JSON.stringify({
  model: 'vendor-v4-flash',
  stream: true,
  max_tokens: 64,
  messages: [{ role: 'user', content: '[[sim:words=20]] [[sim:piece_delay_ms=5]] go' }],
});
const HELD_OPEN = JSON.stringify({
  model: 'vendor-v4-flash',
  stream: true,
  max_tokens: 8,
  messages: [{ role: 'user', content: '[[sim:words=2]] [[sim:piece_delay_ms=4000]] hold' }],
});

const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const sleep = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000));
const percentiles = (h: LatencyHistogram): Percentiles => ({
  p50: h.ms(50),
  p99: h.ms(99),
  p999: h.ms(99.9),
  count: h.count,
  errors: h.errors,
});

/**
 * `npm run bench`: the stack on real Postgres and Redis with provider-sim answering at once,
 * measured against provider-sim called directly in the same run. Writes bench/results/.
 */
async function main(): Promise<void> {
  // A Redis server of the bench's own: its commands and CPU are the stack's alone on a shared machine.
  const [db, redis] = await Promise.all([createTestDatabase(), startOwnRedisServer()]);
  // Without an append-only file, as the shared test Redis the earlier runs measured.
  const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  await admin.config('SET', 'appendonly', 'no');
  admin.disconnect();
  // `npm run bench -- --profile`: every process writes a V8 CPU profile to bench/results/profiles/ as it exits.
  const cpuProfileDir = process.argv.includes('--profile') ? join(RESULTS, 'profiles') : undefined;
  const stack = await startStack({
    databaseUrl: db.url,
    redisUrl: redis.url,
    redisKeyPrefix: 'bench:',
    env: { LOG_LEVEL: 'warn' },
    cpuProfileDir,
  });
  try {
    say('creating accounts');
    const accounts = await AccountPool.create(3000, stack.env.AUTH_ADDR, stack.env.BILLING_ADDR, stack.grpcSecurity('ctl'));
    const gateway: Target = {
      name: 'gateway',
      ...targetPool(stack.baseUrl),
      authorization: () => {
        const k = accounts.take();
        return k && `Bearer ${k}`;
      },
    };
    const direct: Target = { name: 'direct', ...targetPool(stack.providerUrl), authorization: () => 'Bearer bench' };
    const floorProxy = await startFloorProxy(stack.providerUrl);
    const floor: Target = { name: 'floor', ...targetPool(floorProxy.baseUrl), authorization: () => 'Bearer bench' };
    const pids = childPids();
    // Each key's first use asks auth-service; a steady flow of requests finds its keys in the
    // edge's cache. GET /v1/usage authenticates without counting: once per key, 64 at a time.
    say('every key used once (GET /v1/usage), as a steady flow would have');
    const keys = [...accounts.all()];
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        for (let key = keys.pop(); key !== undefined; key = keys.pop()) {
          const res = await gateway.pool.request({
            path: '/v1/usage',
            method: 'GET',
            headers: { authorization: `Bearer ${key}`, 'user-agent': 'gateway-bench' },
          });
          await res.body.arrayBuffer();
        }
      }),
    );

    say("every account's first paid request (its credit line drawn)");
    await firstPaidRequests(gateway, accounts.all(), PAID);

    // First, while the edge is fresh: its resident size after load says more about the GC than the streams.
    say('1,000 streams open at once');
    const open = await memoryPerOpenStream(gateway, HELD_OPEN, 1000, pids.edge);
    if (open.opened < 1000) {
      say(`not opened: ${JSON.stringify(open.notOpened)}; the stack's warnings and errors so far, by message:`);
      for (const [what, n] of Object.entries(warningsByMessage(stack.logs))) say(`  ${n} × ${what}`);
    }

    say('warming up');
    await openLoop(direct, PAID, 200, 2);
    await openLoop(gateway, PAID, 200, 2);
    await openLoop(floor, PAID, 200, 2);

    const rates: BenchResults['rates'] = [];
    const floorRates: BenchResults['floor']['rates'] = [];
    let cpuMsPerRequest: Record<string, number> = {};
    let floorCpuMsPerRequest = 0;
    const pausesAt500: Record<string, PhasePauses> = {};
    let storesPerRequest: StoreCounts = { pgTransactions: 0, pgStatements: 0, redisCommands: 0, redisRoundTrips: 0 };
    const stores = await StoreCounter.open(db.url, redis.url, [
      stack.metricsUrls['auth-service'],
      stack.metricsUrls['billing-service'],
      stack.metricsUrls['quota-service'],
    ]);
    const redisPid = await stores.redisPid();
    for (const rate of RATES) {
      say(`open loop at ${rate} req/s`);
      const directRun = await openLoop(direct, PAID, rate, SECONDS_PER_RATE);
      if (FLOOR_RATES.includes(rate)) {
        const floorPausesBefore = await floorProxy.pauses();
        const floorCpuBefore = cpuSeconds(floorProxy.pid);
        const floorRun = await openLoop(floor, PAID, rate, SECONDS_PER_RATE);
        floorRates.push({ rate, floor: percentiles(floorRun), direct: percentiles(directRun) });
        if (rate === 500) {
          floorCpuMsPerRequest = ((cpuSeconds(floorProxy.pid) - floorCpuBefore) * 1000) / Math.max(1, floorRun.count);
          pausesAt500['floor proxy'] = pausesBetween(floorPausesBefore, await floorProxy.pauses(), floorRun.count);
        }
      }
      const storesBefore = rate === 500 ? await stores.read() : undefined;
      // Read before the CPU counts start and after they end, so that rendering /metrics is not counted.
      const servicePauses = () => Promise.all(SERVICES.map((name) => readServicePauses(stack.metricsUrls[name])));
      const pausesBefore: PauseReading[] | undefined = rate === 500 ? await servicePauses() : undefined;
      // Postgres forks a backend for each new connection (pools let idle ones go): the processes
      // are listed again after the run, and one that appeared during it counts from zero.
      const processes = (): Record<string, number[]> => ({
        ...Object.fromEntries(Object.entries(pids).map(([app, pid]) => [app, [pid]])),
        postgres: postgresPids(db.name),
        redis: [redisPid],
      });
      const cpuBefore = new Map(
        Object.values(processes())
          .flat()
          .map((pid) => [pid, cpuSeconds(pid)]),
      );
      const cpuDuring = (list: number[]) => list.reduce((sum, pid) => sum + cpuSeconds(pid) - (cpuBefore.get(pid) ?? 0), 0);
      const ownBefore = process.cpuUsage();
      const gatewayRun = await openLoop(gateway, PAID, rate, SECONDS_PER_RATE);
      if (rate === 500) {
        const perRequest = (seconds: number) => (seconds * 1000) / Math.max(1, gatewayRun.count);
        const own = process.cpuUsage(ownBefore);
        cpuMsPerRequest = Object.fromEntries(Object.entries(processes()).map(([name, list]) => [name, perRequest(cpuDuring(list))]));
        cpuMsPerRequest['load generator'] = perRequest((own.user + own.system) / 1e6);
        if (pausesBefore) {
          const pausesAfter = await servicePauses();
          SERVICES.forEach((name, i) => (pausesAt500[name] = pausesBetween(pausesBefore[i], pausesAfter[i], gatewayRun.count)));
        }
        if (storesBefore) storesPerRequest = perRequestCounts(storesBefore, await stores.read(), gatewayRun.count);
      }
      rates.push({ rate, gateway: percentiles(gatewayRun), direct: percentiles(directRun) });
    }

    say('saturation (closed loop, 64 in flight)');
    const directSat = await closedLoop(direct, PAID, 64, SECONDS_PER_RATE);
    const gatewaySat = await closedLoop(gateway, PAID, 64, SECONDS_PER_RATE);
    const floorSat = await closedLoop(floor, PAID, 64, SECONDS_PER_RATE);

    say('streams');
    const directStreams = await streamTiming(direct, STREAM, 100, 4);
    const gatewayStreams = await streamTiming(gateway, STREAM, 100, 4);
    const floorStreams = await streamTiming(floor, STREAM, 100, 4);

    say(`Redis commands of the idle stack (${IDLE_SECONDS} s, ${SETTLE_SECONDS} s after the last request)`);
    await sleep(SETTLE_SECONDS);
    const idleBefore = await stores.redisCallsByCommand();
    await sleep(IDLE_SECONDS);
    const idleRedis = commandsPerSecond(idleBefore, await stores.redisCallsByCommand(), IDLE_SECONDS);

    await Promise.all([floorProxy.stop(), stores.close()]);
    say('one gRPC call, alone');
    const grpcCall = await grpcCallFloor(2000, {
      server: stack.grpcSecurity('quota-service'),
      client: stack.grpcSecurity('edge'),
      serverIdentity: 'quota-service',
    });
    say('one Redis script call, alone');
    const redisCall = await redisCallFloor(redis.url, 2000);

    const results: BenchResults = {
      date: new Date().toISOString().slice(0, 10),
      machine: describeMachine(),
      rates,
      saturation: {
        gatewayRps: gatewaySat.rps,
        directRps: directSat.rps,
        floorRps: floorSat.rps,
        gatewayErrors: gatewaySat.errors,
        floorErrors: floorSat.errors,
      },
      streams: {
        gatewayTtfbP50Ms: gatewayStreams.ttfb.ms(50),
        directTtfbP50Ms: directStreams.ttfb.ms(50),
        addedTtfbP50Ms: gatewayStreams.ttfb.ms(50) - directStreams.ttfb.ms(50),
        addedPieceGapP50Ms: gatewayStreams.pieceGap.ms(50) - directStreams.pieceGap.ms(50),
        floorAddedTtfbP50Ms: floorStreams.ttfb.ms(50) - directStreams.ttfb.ms(50),
      },
      openStreams: open,
      cpuMsPerRequest,
      floor: { rates: floorRates, cpuMsPerRequest: floorCpuMsPerRequest },
      storesPerRequest,
      pausesAt500,
      idleRedis: { seconds: IDLE_SECONDS, commandsPerSecond: idleRedis },
      hotAccounts: undefined,
      clusterSpread: undefined,
      grpcCall,
      redisCall,
    };
    mkdirSync(RESULTS, { recursive: true });
    writeLatencyChart(join(RESULTS, 'latency.png'), [
      { color: [30, 90, 220], points: rates.map((r) => [r.rate, r.gateway.p50]) },
      { color: [220, 40, 40], points: rates.map((r) => [r.rate, r.gateway.p99]) },
      { color: [40, 170, 70], points: rates.map((r) => [r.rate, r.direct.p50]) },
      { color: [240, 150, 30], points: rates.map((r) => [r.rate, r.direct.p99]) },
    ]);
    await Promise.all([gateway.pool.close(), direct.pool.close(), floor.pool.close()]);
    await stack.stop();
    if (!QUICK) {
      say('20 accounts, limits raised, 500 req/s (a stack of its own)');
      const hot = await hotAccountsRun(PAID, 500, SECONDS_PER_RATE);
      results.hotAccounts = { gateway: percentiles(hot.gateway), direct: percentiles(hot.direct) };
      say('3,000 accounts on a Redis Cluster of 3 masters, 500 req/s (a stack of its own)');
      results.clusterSpread = await clusterSpreadRun(PAID, 3000, 500, SECONDS_PER_RATE);
    }
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
    const table = markdownReport(results);
    writeFileSync(join(RESULTS, 'latest.md'), table);
    process.stdout.write(`\n${table}`);
  } finally {
    await stack.stop();
    await Promise.all([db.drop(), redis.stop()]);
  }
}

main().catch((err: Error) => {
  process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
