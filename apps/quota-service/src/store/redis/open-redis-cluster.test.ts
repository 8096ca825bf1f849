import Redis, { Cluster } from 'ioredis';
import { createLogger } from '@gw/service-kit';
import { eventually, startRedisCluster, TestRedisCluster } from '@gw/testing';
import { openRedisCluster } from './open-redis-client';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const KEY = 'gw-cluster-client-test:{failover}n';

/** What `node` answers to `call`, or undefined while it does not answer. */
async function askNode<T>(node: string, call: (client: Redis) => Promise<T>): Promise<T | undefined> {
  const client = new Redis(`redis://${node}`, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 1000 });
  try {
    await client.connect();
    return await call(client);
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

const roleOf = async (node: string) => ((await askNode(node, (client) => client.role())) as string[] | undefined)?.[0];

/** The master serving `key`'s slot and one of its replicas. */
async function servingKey(client: Cluster, key: string): Promise<{ master: string; replica: string }> {
  const slot = Number(await client.cluster('KEYSLOT', key));
  const lines = ((await client.cluster('NODES')) as string)
    .trim()
    .split('\n')
    .map((line) => line.split(' '));
  const serves = (fields: string[]) =>
    fields.slice(8).some((range) => {
      const [lo, hi = lo] = range.split('-').map(Number);
      return slot >= lo && slot <= hi;
    });
  const master = lines.find((fields) => fields[2].includes('master') && serves(fields));
  const replica = master && lines.find((fields) => fields[3] === master[0]);
  if (!master || !replica) throw new Error(`no master with a replica serves slot ${slot}`);
  return { master: master[1].split('@')[0], replica: replica[1].split('@')[0] };
}

let cluster: TestRedisCluster;
beforeAll(async () => {
  // A cluster of its own: the test kills one of its masters.
  cluster = await startRedisCluster();
}, 60_000);
afterAll(() => cluster?.stop(), 30_000);

describe('openRedisCluster', () => {
  it('settles every command sent while a master dies, and runs commands again once its replica is promoted', async () => {
    const client = await openRedisCluster(cluster.nodes, { commandTimeoutMs: 500 }, silent);
    try {
      const { master, replica } = await servingKey(client, KEY);
      // Callers that each send their next command as soon as the last settled: several in flight,
      // in one auto-pipeline for the master's nodes, whenever it dies. The pipeline is sent again
      // while the master is gone ("Connection is closed."), past the first try's deadline.
      let stopped = false;
      const outcomes: string[] = [];
      const callers = Array.from({ length: 8 }, async () => {
        while (!stopped) {
          outcomes.push(
            await client.incr(KEY).then(
              () => 'ok',
              (err: Error) => err.message,
            ),
          );
        }
      });
      await eventually(
        () => outcomes.length,
        (n) => n >= 100,
        { what: 'commands answered before the kill' },
      );
      // A replica that never synced with its master is not promoted.
      await eventually(
        () => askNode(replica, (c) => c.info('replication')),
        (info) => info?.includes('master_link_status:up') === true,
        { what: `${replica} in sync` },
      );
      await cluster.kill(master);
      await eventually(
        () => roleOf(replica),
        (role) => role === 'master',
        { timeoutMs: 15_000, what: `${replica} promoted` },
      );
      const atPromotion = outcomes.length;
      const answeredSince = () => outcomes.slice(atPromotion).filter((outcome) => outcome === 'ok').length;
      await eventually(answeredSince, (n) => n >= 100, {
        timeoutMs: 15_000,
        what: 'commands answered by the promoted replica',
      });
      stopped = true;
      // None left waiting: a command the dead master never answered failed (its deadline, or the
      // connection closed) rather than hold its callers, or those after it on that node, forever.
      let settled = false;
      void Promise.all(callers).then(() => (settled = true));
      await eventually(() => settled, { timeoutMs: 5_000, what: 'every caller done' });
      expect(outcomes.filter((o) => o !== 'ok' && o !== 'Command timed out' && o !== 'Connection is closed.')).toEqual([]);
    } finally {
      client.disconnect();
    }
  }, 60_000);
});
