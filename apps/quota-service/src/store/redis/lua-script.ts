import { createHash } from 'node:crypto';
import type { RedisConnection } from './redis-connection';

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}

/**
 * A Lua script run by its SHA1 (EVALSHA). `load` puts it in the server's script cache
 * (SCRIPT LOAD); when the cache lost it (restart, failover, SCRIPT FLUSH) `run` falls back to
 * EVAL, which also caches it again.
 */
export class LuaScript {
  /** SHA1 of the source, as Redis computes it. */
  readonly sha: string;

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha = createHash('sha1').update(source, 'utf8').digest('hex');
  }

  /** SCRIPT LOAD; rejects if the server names the script differently (which would mean a different source). */
  async load(redis: RedisConnection): Promise<void> {
    const sha = await redis.script('LOAD', this.source);
    if (sha !== this.sha) throw new Error(`script ${this.name} loaded as ${String(sha)}, expected ${this.sha}`);
  }

  /** EVALSHA with these keys and arguments, or EVAL when the server answers NOSCRIPT. */
  async run(redis: RedisConnection, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
