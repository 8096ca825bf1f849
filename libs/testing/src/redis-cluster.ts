import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { eventually } from './eventually';
import { connectRedis } from './redis-client';
import { killProcess, launchRedisServer } from './redis-server-process';
import { uniqueToken } from './unique-token';

const run = promisify(execFile);
const FORMED_TIMEOUT_MS = 20_000;

/** A Redis Cluster of a test's own: Debian's redis-server, every node on loopback. */
export interface TestRedisCluster {
  /** `host:port` of every node, as REDIS_CLUSTER_NODES takes them. */
  nodes: string[];
  /** SIGKILLs one node (`host:port`), as a crash would; the others go on. */
  kill(node: string): Promise<void>;
  /** Kills every node and removes their folders. */
  stop(): Promise<void>;
}

/** Whether the node sees the cluster formed: every slot served, `count` nodes, `replicas` of them replicas. */
async function seesFormed(node: string, count: number, replicas: number): Promise<boolean> {
  const client = await connectRedis(`redis://${node}/0`);
  try {
    const info = (await client.cluster('INFO')) as string;
    const described = ((await client.cluster('NODES')) as string).trim().split('\n');
    return (
      info.includes('cluster_state:ok') &&
      info.includes('cluster_slots_ok:16384') &&
      described.length === count &&
      described.filter((line) => line.split(' ')[2].includes('slave')).length === replicas
    );
  } finally {
    client.disconnect();
  }
}

/**
 * Starts `masters` masters with `replicasEach` replicas each on free loopback ports (a data port
 * and a cluster bus port per node, each folder of its own, append-only files as production),
 * joins them with `redis-cli --cluster create`, and resolves once every node sees all the others
 * and every slot served (`cluster_state:ok`). No Docker: the binaries Debian's redis-server brings.
 */
export async function startRedisCluster({ masters = 3, replicasEach = 1 } = {}): Promise<TestRedisCluster> {
  const root = mkdtempSync(join(tmpdir(), 'gw-redis-cluster-'));
  const children: ChildProcess[] = [];
  const nodes: string[] = [];
  const stop = async () => {
    await Promise.all(children.map((child) => killProcess(child)));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const count = masters * (1 + replicasEach);
    for (let i = 0; i < count; i++) {
      const [port, busPort] = [await freePort(), await freePort()];
      const dir = join(root, String(port));
      mkdirSync(dir);
      // A quick node timeout lets a failover happen within a test's time.
      children.push(
        await launchRedisServer(port, dir, [
          '--cluster-enabled',
          'yes',
          '--cluster-port',
          String(busPort),
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          '2000',
        ]),
      );
      nodes.push(`127.0.0.1:${port}`);
    }
    await run('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', String(replicasEach), '--cluster-yes'], {
      timeout: FORMED_TIMEOUT_MS,
    });
    await eventually(async () => (await Promise.all(nodes.map((node) => seesFormed(node, count, masters * replicasEach)))).every(Boolean), {
      timeoutMs: FORMED_TIMEOUT_MS,
      intervalMs: 100,
      what: `the Redis Cluster on ${nodes.join(', ')} formed`,
    });
    return { nodes, stop, kill: (node) => killProcess(children[nodes.indexOf(node)]) };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A private key space on a Redis Cluster for one test file: every key the test writes must start with `keyPrefix`. */
export interface TestRedisClusterSpace {
  /** `host:port` of the cluster's nodes (all of them, or those REDIS_CLUSTER_NODES gave). */
  nodes: string[];
  /** Unique prefix, `t-<pid>-<hex>-`: no braces, so the keys' own hash tags decide their slots. */
  keyPrefix: string;
  /** Deletes every key starting with `keyPrefix` (REDIS_CLUSTER_NODES), or stops the cluster started for the test. */
  cleanup(): Promise<void>;
}

/** Deletes the keys starting with `prefix` on every master among `nodes`, one key per UNLINK (keys of a page are in many slots). */
async function deleteOnMasters(nodes: string[], prefix: string): Promise<void> {
  for (const node of nodes) {
    const client = await connectRedis(`redis://${node}/0`);
    try {
      if (((await client.role()) as [string])[0] !== 'master') continue;
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        cursor = next;
        await Promise.all(keys.map((key) => client.unlink(key)));
      } while (cursor !== '0');
    } finally {
      client.disconnect();
    }
  }
}

/**
 * A key space on the Redis Cluster of REDIS_CLUSTER_NODES (every node listed, so that the
 * cleanup reaches every master), else on a cluster started for the test file (startRedisCluster).
 * Call `cleanup()` in `afterAll`.
 */
export async function createTestRedisCluster(): Promise<TestRedisClusterSpace> {
  const keyPrefix = `t-${uniqueToken('-')}-`;
  const given = process.env.REDIS_CLUSTER_NODES?.split(',').map((node) => node.trim());
  if (given) return { nodes: given, keyPrefix, cleanup: () => deleteOnMasters(given, keyPrefix) };
  const cluster = await startRedisCluster();
  return { nodes: cluster.nodes, keyPrefix, cleanup: cluster.stop };
}
