import { join } from 'node:path';
import Redis from 'ioredis';
import { startStack } from '@gw/test-stack';
import { createTestDatabase, startOwnRedisServer } from '@gw/testing';
import { AccountPool } from './account-pool';
import { startFloorProxy } from './floor-process';
import { firstPaidRequests } from './first-paid-requests';
import { openLoop } from './open-loop';
import { childPids, cpuSeconds, postgresPids } from './process-stats';
import { Target, targetPool } from './target';

/**
 * `npm run bench:probe -- [--rounds N] [--seconds S] [--rate R] [--profile] [--apps DIR] [--node-option OPT]`: the CPU
 * per paid request of each process of this checkout's build and of the floor proxy, in
 * alternating rounds on one stack, with the median of the rounds, and the commands Redis ran per
 * paid request (INFO commandstats, those scripts run counted too). A change is measured by running
 * it on two builds in turn (each checkout runs its own dist/); far quicker than `npm run bench`,
 * and the median of rounds is steadier than one phase. `--apps` runs the apps of another build
 * (its dist/apps) under this probe, for a figure an older probe does not print. `--node-option`
 * (repeatable) starts every service of the stack with that Node option (a V8 flag to try, say).
 */
const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const ROUNDS = arg('rounds', 5);
const SECONDS = arg('seconds', 6);
const RATE = arg('rate', 500);
const ACCOUNTS = 600;
const PAID = JSON.stringify({ model: 'vendor-v4-flash', max_tokens: 16, messages: [{ role: 'user', content: 'Hello there' }] });
const STACK = ['edge', 'auth-service', 'quota-service', 'billing-service', 'postgres', 'redis'];
const say = (line: string) => process.stderr.write(`[probe] ${line}\n`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const appsAt = process.argv.indexOf('--apps');
const APPS = appsAt >= 0 ? process.argv[appsAt + 1] : undefined;
const NODE_OPTIONS = process.argv.flatMap((arg, at) => (arg === '--node-option' ? [process.argv[at + 1]] : []));

/** Commands Redis has run so far (INFO commandstats, scripts' own commands too), INFO itself left out. */
async function redisCommands(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  let calls = 0;
  for (const [, command, n] of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (command !== 'info') calls += Number(n);
  return calls;
}

async function main(): Promise<void> {
  const [db, redis] = await Promise.all([createTestDatabase(), startOwnRedisServer()]);
  const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  await admin.config('SET', 'appendonly', 'no');
  admin.disconnect();
  const cpuProfileDir = process.argv.includes('--profile') ? join(__dirname, '..', '..', 'bench', 'results', 'profiles') : undefined;
  const stack = await startStack({
    databaseUrl: db.url,
    redisUrl: redis.url,
    redisKeyPrefix: 'probe:',
    env: { LOG_LEVEL: 'warn' },
    cpuProfileDir,
    distOf: APPS ? () => APPS : undefined,
    execArgv: Object.fromEntries(STACK.map((app) => [app, NODE_OPTIONS])),
  });
  try {
    say('creating accounts');
    const accounts = await AccountPool.create(ACCOUNTS, stack.env.AUTH_ADDR, stack.env.BILLING_ADDR, stack.grpcSecurity('ctl'));
    const gateway: Target = {
      name: 'gateway',
      ...targetPool(stack.baseUrl),
      authorization: () => {
        const key = accounts.take();
        return key && `Bearer ${key}`;
      },
    };
    const floorProxy = await startFloorProxy(stack.providerUrl);
    const floor: Target = { name: 'floor', ...targetPool(floorProxy.baseUrl), authorization: () => 'Bearer probe' };
    say("every account's first paid request");
    await firstPaidRequests(gateway, accounts.all(), PAID);
    await openLoop(gateway, PAID, RATE, 2);
    await openLoop(floor, PAID, RATE, 2);
    const pids = childPids();
    const asker = new Redis(redis.url);
    const redisPid = Number(/process_id:(\d+)/.exec(await asker.info('server'))?.[1]);
    const rounds: Record<string, number>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const floorBefore = cpuSeconds(floorProxy.pid);
      const floorRun = await openLoop(floor, PAID, RATE, SECONDS);
      const floorMs = ((cpuSeconds(floorProxy.pid) - floorBefore) * 1000) / floorRun.count;
      const processes: Record<string, number[]> = {
        ...Object.fromEntries(Object.entries(pids).map(([app, pid]) => [app, [pid]])),
        postgres: postgresPids(db.name),
        redis: [redisPid],
      };
      const before = new Map(
        Object.values(processes)
          .flat()
          .map((pid) => [pid, cpuSeconds(pid)]),
      );
      const commandsBefore = await redisCommands(asker);
      const run = await openLoop(gateway, PAID, RATE, SECONDS);
      const commands = (await redisCommands(asker)) - commandsBefore;
      const after = { ...processes, postgres: postgresPids(db.name) };
      const perRequest: Record<string, number> = { floor: floorMs };
      for (const [name, list] of Object.entries(after))
        perRequest[name] = (list.reduce((sum, pid) => sum + cpuSeconds(pid) - (before.get(pid) ?? 0), 0) * 1000) / run.count;
      perRequest.stack = STACK.reduce((sum, name) => sum + (perRequest[name] ?? 0), 0);
      perRequest.errors = run.errors + floorRun.errors;
      perRequest['redis-commands'] = commands / run.count;
      rounds.push(perRequest);
      say(
        `round ${round + 1}: ${Object.entries(perRequest)
          .map(([k, v]) => `${k} ${v.toFixed(3)}`)
          .join(', ')}`,
      );
    }
    const names = Object.keys(rounds[0]);
    const medians = Object.fromEntries(names.map((name) => [name, median(rounds.map((r) => r[name]))]));
    const ratios = Object.fromEntries(
      ['stack', 'edge', 'quota-service', 'redis'].map((name) => [name, median(rounds.map((r) => r[name] / r.floor))]),
    );
    process.stdout.write(
      `${JSON.stringify({ rate: RATE, seconds: SECONDS, rounds: rounds.length, medianMsPerRequest: medians, medianRatioToFloor: ratios })}\n`,
    );
    asker.disconnect();
    await Promise.all([floorProxy.stop(), gateway.pool.close(), floor.pool.close()]);
  } finally {
    await stack.stop();
    await Promise.all([db.drop(), redis.stop()]);
  }
}

main().catch((err: Error) => {
  process.stderr.write(`probe failed: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
