import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { createTestRedis, type TestRedis } from './test-redis';

describe('createTestRedis', () => {
  const created: TestRedis[] = [];
  const clients: Redis[] = [];
  const create = async (): Promise<TestRedis> => {
    const redis = await createTestRedis();
    created.push(redis);
    return redis;
  };
  const connect = (url: string): Redis => {
    const client = new Redis(url);
    clients.push(client);
    return client;
  };

  afterAll(async () => {
    await Promise.all(created.map((redis) => redis.cleanup()));
    await Promise.all(clients.map((client) => client.quit()));
  });

  it('gives each call its own key prefix', async () => {
    const [a, b] = await Promise.all([create(), create()]);
    expect(a.keyPrefix).toMatch(new RegExp(`^t:${process.pid}:[0-9a-f]{16}:$`));
    expect(a.keyPrefix).not.toBe(b.keyPrefix);
    expect(b.keyPrefix.startsWith(a.keyPrefix)).toBe(false);
  });

  it('cleanup() deletes every key under its prefix and nothing else', async () => {
    const redis = await createTestRedis();
    const client = connect(redis.url);
    expect(await client.ping()).toBe('PONG');

    const mine = Array.from({ length: 1234 }, (_, i) => `${redis.keyPrefix}k${i}`);
    const pipeline = client.pipeline();
    for (const key of mine) pipeline.set(key, 'v');
    pipeline.hset(`${redis.keyPrefix}hash`, 'field', 'v');
    pipeline.rpush(`${redis.keyPrefix}list`, 'a', 'b');
    await pipeline.exec();
    mine.push(`${redis.keyPrefix}hash`, `${redis.keyPrefix}list`);

    const otherPrefix = `t:${process.pid}:other-${randomBytes(8).toString('hex')}:`;
    const survivors = [`${otherPrefix}kept`, `x${redis.keyPrefix}not-a-prefix-match`];
    try {
      for (const key of survivors) await client.set(key, 'stay');
      expect(await client.exists(...mine)).toBe(mine.length);

      await redis.cleanup();

      expect(await client.exists(...mine)).toBe(0);
      expect(await client.exists(...survivors)).toBe(survivors.length);
      await expect(redis.cleanup()).resolves.toBeUndefined();
    } finally {
      await client.unlink(...survivors);
    }
    expect(await client.exists(...survivors)).toBe(0);
  });
});
