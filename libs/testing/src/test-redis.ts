import type Redis from 'ioredis';
import { locateServer, type ServerLocation } from './locate-server';
import { redisAnswers } from './redis-answers';
import { connectRedis } from './redis-client';
import { startDockerService } from './start-docker-service';
import { uniqueToken } from './unique-token';

/** A private Redis key space for one test file: every key the test writes must start with `keyPrefix`. */
export interface TestRedis {
  /** Redis server URL. */
  url: string;
  /** Unique prefix, `t:<pid>:<hex>:`. */
  keyPrefix: string;
  /** Deletes every key starting with `keyPrefix`, closes the connection and stops any container started for it. Safe to call twice. */
  cleanup(): Promise<void>;
}

const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379/0';

const MISSING_REDIS = 'No Redis for tests: set REDIS_URL, or start Redis on 127.0.0.1:6379, or make Docker available for testcontainers';

const SCAN_COUNT = 500;

let localRedis: Promise<boolean> | undefined;

async function startRedisContainer(): Promise<{ url: string; stop(): Promise<void> }> {
  const service = await startDockerService({ image: 'redis:7', port: 6379, readyLog: /Ready to accept connections/ });
  return { url: `redis://${service.host}:${service.port}/0`, stop: service.stop };
}

function locateRedis(): Promise<ServerLocation> {
  return locateServer({
    envUrl: process.env.REDIS_URL,
    localUrl: LOCAL_REDIS_URL,
    answers: (url) => (localRedis ??= redisAnswers(url)),
    startContainer: startRedisContainer,
    missingMessage: MISSING_REDIS,
  });
}

/** Escapes Redis glob metacharacters so `value` matches only itself. */
function escapeGlob(value: string): string {
  return value.replace(/[*?[\]\\]/g, '\\$&');
}

/** Deletes keys matching `prefix*` with SCAN + UNLINK (never KEYS), one UNLINK per SCAN page. */
async function deleteByPrefix(client: Redis, prefix: string): Promise<void> {
  const pattern = `${escapeGlob(prefix)}*`;
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
    cursor = next;
    if (keys.length > 0) await client.unlink(...keys);
  } while (cursor !== '0');
}

async function close(client: Redis): Promise<void> {
  await client.quit().catch(() => client.disconnect());
}

/**
 * Reserves a unique key prefix on a Redis server for one test file. The server comes from
 * `REDIS_URL`, else local Redis at 127.0.0.1:6379 if it answers PING within about 2 s, else a
 * redis:7 container when Docker is reachable. Throws an Error saying what to start when none is
 * available. Call `cleanup()` in `afterAll`.
 */
export async function createTestRedis(): Promise<TestRedis> {
  const server = await locateRedis();
  const open = async (): Promise<Redis> => {
    try {
      return await connectRedis(server.url, 10_000);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`Could not connect to Redis (server from ${server.origin}): ${reason}`, { cause: error });
    }
  };
  try {
    await close(await open());
  } catch (error) {
    await server.stop().catch(() => undefined);
    throw error;
  }
  const keyPrefix = `t:${uniqueToken(':')}:`;

  let cleaned: Promise<void> | undefined;
  const cleanup = async (): Promise<void> => {
    try {
      const client = await open();
      try {
        await deleteByPrefix(client, keyPrefix);
      } finally {
        await close(client);
      }
    } finally {
      await server.stop();
    }
  };
  return { url: server.url, keyPrefix, cleanup: () => (cleaned ??= cleanup()) };
}
