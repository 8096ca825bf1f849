import type { RedisConnection } from './redis-connection';
import { DeclaredScript, Named } from './lua-script';
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

/** The keys and arguments that follow a script's declared ones (its restKeys and restArgs). */
export interface ScriptRest {
  keys?: readonly string[];
  args?: readonly (string | number)[];
}

/**
 * Runs a script whose reply is an array of at least `replyLength` whole numbers, with its keys
 * and arguments by name (then `rest`). With a test clock `now`, its time (ms) is passed last (the
 * script's `clock`), which every script reads instead of Redis TIME. Any failure,
 * or a reply of another shape, becomes StoreUnavailableError.
 */
export async function runScript<K extends string, A extends string>(
  redis: RedisConnection,
  script: DeclaredScript<K, A>,
  keys: Named<K, string>,
  args: Named<A, string | number>,
  replyLength: number,
  now?: () => number,
  rest: ScriptRest = {},
): Promise<number[]> {
  const clock = now ? [Math.floor(now())] : [];
  try {
    const keyList = script.keyList(keys, rest.keys);
    return numbers(await script.run(redis, keyList, script.argList(args, [...(rest.args ?? []), ...clock])), replyLength);
  } catch (err) {
    throw new StoreUnavailableError(err);
  }
}
