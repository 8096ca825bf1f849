import { register } from 'prom-client';
import { createLogger } from '@gw/service-kit';
import { createTestRedis, eventually, startPausableProxy, TestRedis } from '@gw/testing';
import { openRedisClient } from './open-redis-client';

const silent = createLogger('quota-service-test', 'error', () => undefined);
const sent = async (): Promise<number> => (await register.getSingleMetric('redis_commands_sent_total')?.get())?.values[0]?.value ?? 0;

let testRedis: TestRedis;
beforeAll(async () => {
  testRedis = await createTestRedis();
});
afterAll(() => testRedis.cleanup());

describe('openRedisClient', () => {
  it('counts each command sent, those sent in one turn of the event loop too', async () => {
    const client = await openRedisClient({ url: testRedis.url, commandTimeoutMs: 1000 }, silent);
    try {
      const before = await sent();
      await client.set(`${testRedis.keyPrefix}k`, '1');
      // Three commands sent in one turn.
      await Promise.all([
        client.get(`${testRedis.keyPrefix}k`),
        client.get(`${testRedis.keyPrefix}k`),
        client.del(`${testRedis.keyPrefix}k`),
      ]);
      expect((await sent()) - before).toBe(4);
    } finally {
      client.disconnect();
    }
  });
});

describe('the command deadlines (one timer per connection)', () => {
  it('fails a command Redis does not answer in time, replaces the silent connection, and works again once Redis answers', async () => {
    const proxy = await startPausableProxy(testRedis.url);
    const client = await openRedisClient({ url: proxy.url, commandTimeoutMs: 100 }, silent);
    const key = `${testRedis.keyPrefix}deadline`;
    try {
      expect(await client.set(key, 'answered')).toBe('OK');
      let connects = 0;
      client.on('connect', () => connects++);
      proxy.stall();
      // Each fails at its own deadline (a connection destroyed would fail it otherwise).
      await expect(client.get(key)).rejects.toThrow('Command timed out');
      await expect(client.get(key)).rejects.toThrow('Command timed out');
      // Silent past the socket deadline (five command deadlines, at least 1 s): destroyed and made again.
      await eventually(() => connects > 0, { timeoutMs: 5000, what: 'a new connection' });
      proxy.resume();
      expect(await eventually(() => client.get(key).catch(() => undefined), { timeoutMs: 5000 })).toBe('answered');
    } finally {
      client.disconnect();
      await proxy.close();
    }
  });
});
