import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { redisAnswers } from './redis-answers';

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

const READY_TIMEOUT_MS = 10_000;

/**
 * Starts Debian's `redis-server` on a free loopback port with an append-only file (fsync every
 * second, as production runs it) in a folder of its own. Fails with a clear message when the
 * binary is missing.
 */
export async function startOwnRedisServer(): Promise<OwnRedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gw-redis-'));
  const url = `redis://127.0.0.1:${port}/0`;
  let child: ChildProcess | undefined;
  const launch = async () => {
    const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', ''], { stdio: 'ignore' });
    child = started;
    const failed = new Promise<never>((_, reject) => started.once('error', (err) => reject(new Error(`redis-server could not start (is Debian's redis-server installed?): ${err.message}`))));
    const deadline = Date.now() + READY_TIMEOUT_MS;
    const ready = (async () => {
      while (!(await redisAnswers(url))) {
        if (Date.now() > deadline || started.exitCode !== null) throw new Error(`redis-server on port ${port} did not answer within ${READY_TIMEOUT_MS} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await Promise.race([ready, failed]);
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };
  await launch();
  return {
    url,
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
