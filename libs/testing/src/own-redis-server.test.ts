import Redis from 'ioredis';
import { startOwnRedisServer } from './own-redis-server';

describe('startOwnRedisServer', () => {
  it('keeps what its append-only file holds across a kill, and starts empty when asked', async () => {
    const server = await startOwnRedisServer();
    const read = async () => {
      const client = new Redis(server.url, { maxRetriesPerRequest: 1 });
      try {
        return await client.get('kept');
      } finally {
        client.disconnect();
      }
    };
    try {
      const client = new Redis(server.url);
      await client.set('kept', 'yes');
      client.disconnect();
      // The file is written every second.
      await new Promise((r) => setTimeout(r, 1200));
      await server.kill();
      await server.start();
      expect(await read()).toBe('yes');
      await server.start({ empty: true });
      expect(await read()).toBeNull();
    } finally {
      await server.stop();
    }
  });
});
