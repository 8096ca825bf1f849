import type { RedisConnection } from './redis-connection';
import { LuaScript } from './lua-script';
import { StoreUnavailableError } from '../store-unavailable-error';

/** Reads a script reply that must be an array of at least `length` whole numbers. */
function numbers(reply: unknown, length: number): number[] {
  if (!Array.isArray(reply) || reply.length < length) throw new Error('unexpected script reply');
  return reply.map((value: unknown) => {
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isSafeInteger(n)) throw new Error('unexpected script reply');
    return n;
  });
}

/**
 * Runs a script whose reply is an array of at least `replyLength` whole numbers. With a test
 * clock `now`, its time (ms) is passed as the last argument, which every script reads instead
 * of Redis TIME. Any failure, or a reply of another shape, becomes StoreUnavailableError.
 */
export async function runScript(
  redis: RedisConnection,
  script: LuaScript,
  keys: string[],
  args: (string | number)[],
  replyLength: number,
  now?: () => number,
): Promise<number[]> {
  const withClock = now ? [...args, Math.floor(now())] : args;
  try {
    return numbers(await script.run(redis, keys, withClock), replyLength);
  } catch (err) {
    throw new StoreUnavailableError(err);
  }
}
