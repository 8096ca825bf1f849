import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort, repoRoot } from '@gw/testing';

const ROOT = repoRoot();
const LAUNCHER = join(ROOT, 'dist', 'tools', 'launcher', 'main.js');

/** Every port a stack of `npm start` binds (provider-sim included), by its variable. */
export const PORT_VARIABLES = [
  'EDGE_PORT',
  'EDGE_ADMIN_PORT',
  'AUTH_PORT',
  'QUOTA_PORT',
  'BILLING_PORT',
  'PROVIDER_SIM_PORT',
  'AUTH_METRICS_PORT',
  'QUOTA_METRICS_PORT',
  'BILLING_METRICS_PORT',
  'CONSOLE_PORT',
  'CONSOLE_GRPC_PORT',
  'CONSOLE_METRICS_PORT',
  'NOTIFIER_PORT',
  'NOTIFIER_METRICS_PORT',
] as const;

/**
 * The environment of one stack on embedded defaults (no DATABASE_URL, REDIS_URL or
 * PROVIDER_BASE_URL: PGlite under `dataDir`, in-memory limits, provider-sim), on free ports.
 */
export async function stackEnv(dataDir: string): Promise<Record<string, string>> {
  const ports = await Promise.all(PORT_VARIABLES.map(freePort));
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATA_DIR: dataDir,
    ...Object.fromEntries(PORT_VARIABLES.map((name, i) => [name, String(ports[i])])),
  };
}

/** The ports of a stack's environment. */
export function stackPorts(env: Record<string, string>): number[] {
  return PORT_VARIABLES.map((name) => Number(env[name]));
}

/** A started `npm start` (or its launcher alone), its output as it comes. */
export interface Launch {
  child: ChildProcess;
  output: string[];
  /** Resolves once the launcher prints where the API is; rejects if it exits first. */
  ready: Promise<void>;
  /** The exit code, null when a signal ended it. */
  exited: Promise<number | null>;
}

function watch(child: ChildProcess): Launch {
  const output: string[] = [];
  let partial = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      const lines = (partial + d.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      output.push(...lines);
      if (lines.some((l) => l.includes('the API is at'))) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => reject(new Error(`exited with ${code} before it was ready:\n${output.join('\n')}`)));
  });
  ready.catch(() => undefined);
  return { child, output, ready, exited };
}

/** The launcher alone, `node dist/tools/launcher/main.js`, as `npm start` runs it after its build. */
export function startLauncher(env: Record<string, string>): Launch {
  return watch(spawn(process.execPath, [LAUNCHER], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/**
 * `npm start` as a user runs it: npm, the shell of its script, the build, then the launcher. It
 * leads a process group of its own, as a terminal's foreground job does, so that a Ctrl-C can be
 * sent to the whole group.
 */
export function npmStart(env: Record<string, string>): Launch {
  return watch(spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }));
}
