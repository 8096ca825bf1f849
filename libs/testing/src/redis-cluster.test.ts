import { Cluster } from 'ioredis';
import { startRedisCluster } from './redis-cluster';

describe('startRedisCluster', () => {
  it('starts 3 masters with a replica each, every slot served, and keys of different slots reach their masters', async () => {
    const cluster = await startRedisCluster();
    const client = new Cluster(cluster.nodes.map((node) => ({ host: node.split(':')[0], port: Number(node.split(':')[1]) })));
    try {
      await new Promise((resolve) => client.once('ready', resolve));
      const described = ((await client.cluster('NODES')) as string).trim().split('\n');
      const roles = described.map((line) => (line.split(' ')[2].includes('master') ? 'master' : 'replica'));
      expect(roles.sort()).toEqual(['master', 'master', 'master', 'replica', 'replica', 'replica']);
      expect(described.map((line) => line.split(' ')[1].split('@')[0]).sort()).toEqual([...cluster.nodes].sort());
      const keys = Array.from({ length: 30 }, (_, i) => `key-${i}`);
      for (const key of keys) await client.set(key, key);
      const sizes = await Promise.all(client.nodes('master').map((node) => node.dbsize()));
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(30);
      expect(sizes.every((size) => size > 0)).toBe(true);
      expect(await Promise.all(keys.map((key) => client.get(key)))).toEqual(keys);
    } finally {
      client.disconnect();
      await cluster.stop();
    }
  });
});
