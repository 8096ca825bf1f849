import { ChildProcess, spawn } from 'node:child_process';
import { eventually } from './eventually';
import { redisAnswers } from './redis-answers';

const READY_TIMEOUT_MS = 10_000;

/**
 * Starts Debian's `redis-server` on a loopback port with its data in `dir` (append-only file,
 * fsync every second, as production runs it, no snapshots) and `args` on top; resolves once it
 * answers PING. Fails with a clear message when the binary is missing.
 */
export async function launchRedisServer(port: number, dir: string, args: string[] = []): Promise<ChildProcess> {
  const url = `redis://127.0.0.1:${port}/0`;
  const started = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--save',
      '',
      ...args,
    ],
    {
      stdio: 'ignore',
    },
  );
  const failed = new Promise<never>((_, reject) =>
    started.once('error', (err) => reject(new Error(`redis-server could not start (is Debian's redis-server installed?): ${err.message}`))),
  );
  const answers = async () => {
    if (started.exitCode !== null) throw new Error(`redis-server on port ${port} exited with code ${started.exitCode}`);
    return redisAnswers(url);
  };
  const ready = eventually(answers, { timeoutMs: READY_TIMEOUT_MS, what: `redis-server on port ${port} answering` });
  try {
    await Promise.race([ready, failed]);
  } catch (err) {
    await killProcess(started);
    throw err;
  }
  return started;
}

/** SIGKILL, resolved once the process is gone (at once when it already is). */
export async function killProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
