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

/**
 * A script's keys and arguments, each declared once by name. The script's header binds each to a
 * Lua local of that name (key i to KEYS[i], argument i to ARGV[i], in declaration order), so its
 * body reads names, never positions; and the lists EVALSHA gets are built from named values in
 * the same order. `restKeys`/`restArgs` name a Lua table of whatever keys or arguments follow the
 * declared ones (a script over a list). Without `restArgs`, the local `clock` is the argument after
 * the declared ones: the test clock that runScript appends, which `now_ms(clock)` reads.
 */
export interface ScriptDeclaration<K extends string, A extends string> {
  keys: readonly K[];
  args: readonly A[];
  restKeys?: string;
  restArgs?: string;
  /** Lua functions the body calls (NOW, LIVE_PLACES, ...), put before the header. */
  uses?: string;
  body: string;
}

/** Values by name, for the keys or the arguments of a declared script. */
export type Named<N extends string, V> = { readonly [name in N]: V };

/** The header binding each declared key and argument to a local of its name. */
function headerOf(declaration: ScriptDeclaration<string, string>): string {
  const { keys, args, restKeys, restArgs } = declaration;
  const lines = [...keys.map((name, i) => `local ${name} = KEYS[${i + 1}]`), ...args.map((name, i) => `local ${name} = ARGV[${i + 1}]`)];
  if (restKeys) lines.push(`local ${restKeys} = {unpack(KEYS, ${keys.length + 1})}`);
  if (restArgs) lines.push(`local ${restArgs} = {unpack(ARGV, ${args.length + 1})}`);
  else if (!args.includes('clock')) lines.push(`local clock = ARGV[${args.length + 1}]`);
  return lines.join('\n');
}

/** A script declared by name (defineScript). */
export class DeclaredScript<K extends string, A extends string> extends LuaScript {
  constructor(
    name: string,
    private readonly declaration: ScriptDeclaration<K, A>,
  ) {
    super(name, `${declaration.uses ?? ''}\n${headerOf(declaration)}\n${declaration.body}`);
  }

  /** The keys in their declared order, then `rest`. */
  keyList(keys: Named<K, string>, rest: readonly string[] = []): string[] {
    return [...this.declaration.keys.map((name) => keys[name]), ...rest];
  }

  /** The arguments in their declared order, then `rest`. */
  argList(args: Named<A, string | number>, rest: readonly (string | number)[] = []): (string | number)[] {
    return [...this.declaration.args.map((name) => args[name]), ...rest];
  }
}

/** A Lua script whose keys and arguments are declared once, by name (ScriptDeclaration). */
export function defineScript<const K extends string, const A extends string>(
  name: string,
  declaration: ScriptDeclaration<K, A>,
): DeclaredScript<K, A> {
  return new DeclaredScript(name, declaration);
}
