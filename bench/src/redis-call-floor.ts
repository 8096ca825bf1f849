import Redis from 'ioredis';
import { CallCost, measureCalls } from './call-cost';

/** One script call with ioredis: the client's cost (CallCost) and Redis's CPU per call. */
export interface RedisCallFloor extends CallCost {
  redisCpuMsPerCall: number;
}

/** A script of one read: the least a script call of quota-service's can cost. */
const ONE_READ = "return redis.call('HGET', KEYS[1], 'f')";

async function redisCpuMs(client: Redis): Promise<number> {
  const info = await client.info('cpu');
  const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1000;
}

/**
 * The floor under each of quota-service's Redis round trips: `calls` sequential EVALSHA calls of
 * a one-read script with ioredis on loopback, as quota-service sends them (one write each, no
 * auto-pipelining), with this process's CPU and Redis's per call (INFO cpu around the run).
 */
export async function redisCallFloor(url: string, calls: number): Promise<RedisCallFloor> {
  const client = new Redis(url, { maxRetriesPerRequest: 1, enableAutoPipelining: false });
  try {
    const sha = (await client.script('LOAD', ONE_READ)) as string;
    const call = () => client.evalsha(sha, 1, 'bench:call-floor');
    const redisBefore = await redisCpuMs(client);
    const cost = await measureCalls(calls, call);
    const redisMs = (await redisCpuMs(client)) - redisBefore;
    return { ...cost, redisCpuMsPerCall: redisMs / (calls + 200) };
  } finally {
    client.disconnect();
  }
}
