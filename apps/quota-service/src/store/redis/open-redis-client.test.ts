import { register } from 'prom-client';
import { createLogger } from '@gw/service-kit';
import { createTestRedis, TestRedis } from '@gw/testing';
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
