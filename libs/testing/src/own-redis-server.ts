import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { killProcess, launchRedisServer } from './redis-server-process';

/** A redis-server of a test's own, which the test may kill and start again (a store that crashes). */
export interface OwnRedisServer {
  /** `redis://127.0.0.1:<port>/0`, the same across restarts. */
  url: string;
  /** SIGKILL: no AOF rewrite, no goodbye to clients. */
  kill(): Promise<void>;
  /** Starts it again on the same port: with what it had (its append-only file), or `empty`. */
  start(options?: { empty?: boolean }): Promise<void>;
  /** Kills it and removes its folder. */
  stop(): Promise<void>;
}

/**
 * Starts Debian's `redis-server` on a free loopback port with an append-only file (fsync every
 * second, as production runs it) in a folder of its own. Fails with a clear message when the
 * binary is missing.
 */
export async function startOwnRedisServer(): Promise<OwnRedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gw-redis-'));
  let child: ChildProcess | undefined;
  const launch = async () => {
    child = await launchRedisServer(port, dir);
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    await killProcess(running);
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    kill,
    start: async ({ empty = false } = {}) => {
      await kill();
      if (empty) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
      }
      await launch();
    },
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
