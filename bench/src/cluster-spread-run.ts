import Redis from 'ioredis';
import { startStack } from '@gw/test-stack';
import { createTestDatabase, startRedisCluster } from '@gw/testing';
import { AccountPool } from './account-pool';
import { firstPaidRequests } from './first-paid-requests';
import { openLoop } from './open-loop';
import { warningsByMessage } from './stack-warnings';
import { commandsPerSecond } from './store-counts';
import { Target, targetPool } from './target';

/** What one master of the cluster did during the run. */
export interface MasterWork {
  node: string;
  /** Commands it ran (INFO commandstats: those scripts run counted too). */
  commands: number;
  /** CPU it spent, ms (INFO cpu, user + system). */
  cpuMs: number;
}

/** A master's counters at one reading, and its calls of each command but INFO (the bench's own readings). */
type MasterReading = MasterWork & { calls: Record<string, number> };

/** The paid path on a Redis Cluster: how evenly the masters share the work, and what a master carries. */
export interface ClusterSpread {
  accounts: number;
  requests: number;
  errors: number;
  masters: MasterWork[];
  /** The busiest and the idlest master's commands over the mean. */
  maxOverMean: number;
  minOverMean: number;
  /** Commands run by all masters, and Redis round trips quota-service made, per paid request. */
  commandsPerRequest: number;
  roundTripsPerRequest: number;
  /** CPU of all masters per paid request, ms; one master (one core) carries 1,000 ÷ this paid requests/s. */
  redisCpuMsPerRequest: number;
  /** Commands a second all masters ran with no load (IDLE_SECONDS, SETTLE_SECONDS after the last request), by command, busiest first. */
  idleCommandsPerSecond: Record<string, number>;
}

const SETTLE_SECONDS = 2;
const IDLE_SECONDS = 5;
const sleep = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000));

async function readMaster(node: string): Promise<MasterReading> {
  const client = new Redis(`redis://${node}/0`, { maxRetriesPerRequest: 1 });
  try {
    const stats = await client.info('commandstats');
    const cpu = await client.info('cpu');
    const seconds = (field: string) => Number(new RegExp(`${field}:([\\d.]+)`).exec(cpu)?.[1] ?? 0);
    const calls = [...stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)];
    return {
      node,
      commands: calls.reduce((sum, m) => sum + Number(m[2]), 0),
      cpuMs: (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1000,
      calls: Object.fromEntries(calls.filter((m) => m[1] !== 'info').map((m) => [m[1], Number(m[2])])),
    };
  } finally {
    client.disconnect();
  }
}

async function mastersOf(nodes: string[]): Promise<string[]> {
  const roles = await Promise.all(
    nodes.map(async (node) => {
      const client = new Redis(`redis://${node}/0`, { maxRetriesPerRequest: 1 });
      try {
        return ((await client.role()) as string[])[0];
      } finally {
        client.disconnect();
      }
    }),
  );
  return nodes.filter((_, i) => roles[i] === 'master');
}

async function roundTrips(metricsUrl: string): Promise<number> {
  const line = (await (await fetch(metricsUrl)).text()).split('\n').find((l) => l.startsWith('redis_commands_sent_total '));
  return line ? Number(line.split(' ')[1]) : 0;
}

/**
 * The third load shape (issue 24): a stack of its own on a Redis Cluster of 3 masters with a
 * replica each (quota-service in the shard layout), `accounts` funded accounts, `rate` paid
 * requests a second for `seconds`; each master's commands and CPU read around the run.
 */
export async function clusterSpreadRun(body: string, accounts: number, rate: number, seconds: number): Promise<ClusterSpread> {
  const [db, cluster] = await Promise.all([createTestDatabase(), startRedisCluster()]);
  const stack = await startStack({
    databaseUrl: db.url,
    redisClusterNodes: cluster.nodes,
    redisKeyPrefix: 'bench:',
    env: { LOG_LEVEL: 'warn' },
  });
  try {
    const pool = await AccountPool.create(accounts, stack.env.AUTH_ADDR, stack.env.BILLING_ADDR, stack.grpcSecurity('ctl'));
    const gateway: Target = {
      name: 'gateway',
      ...targetPool(stack.baseUrl),
      authorization: () => {
        const k = pool.take();
        return k && `Bearer ${k}`;
      },
    };
    await firstPaidRequests(gateway, pool.all(), body);
    const masters = await mastersOf(cluster.nodes);
    const before = await Promise.all(masters.map(readMaster));
    const tripsBefore = await roundTrips(stack.metricsUrls['quota-service']);
    const run = await openLoop(gateway, body, rate, seconds);
    if (run.errors > 0) {
      process.stdout.write(`[bench] ${run.errors} requests failed; the stack's warnings and errors, by message:\n`);
      for (const [what, n] of Object.entries(warningsByMessage(stack.logs))) process.stdout.write(`[bench]   ${n} × ${what}\n`);
    }
    const after = await Promise.all(masters.map(readMaster));
    const trips = (await roundTrips(stack.metricsUrls['quota-service'])) - tripsBefore;
    await gateway.pool.close();
    await sleep(SETTLE_SECONDS);
    const idleBefore = await Promise.all(masters.map(readMaster));
    await sleep(IDLE_SECONDS);
    const idleAfter = await Promise.all(masters.map(readMaster));
    const summed = (readings: MasterReading[]) => {
      const calls: Record<string, number> = {};
      for (const r of readings) for (const [command, n] of Object.entries(r.calls)) calls[command] = (calls[command] ?? 0) + n;
      return calls;
    };
    const work = after.map((a, i) => ({
      node: a.node,
      commands: a.commands - before[i].commands,
      cpuMs: a.cpuMs - before[i].cpuMs,
    }));
    const mean = work.reduce((sum, w) => sum + w.commands, 0) / work.length;
    const requests = Math.max(1, run.count);
    return {
      accounts,
      requests: run.count,
      errors: run.errors,
      masters: work,
      maxOverMean: Math.max(...work.map((w) => w.commands)) / mean,
      minOverMean: Math.min(...work.map((w) => w.commands)) / mean,
      commandsPerRequest: (mean * work.length) / requests,
      roundTripsPerRequest: trips / requests,
      redisCpuMsPerRequest: work.reduce((sum, w) => sum + w.cpuMs, 0) / requests,
      idleCommandsPerSecond: commandsPerSecond(summed(idleBefore), summed(idleAfter), IDLE_SECONDS),
    };
  } finally {
    await stack.stop();
    await Promise.all([db.drop(), cluster.stop()]);
  }
}
