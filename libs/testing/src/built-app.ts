import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './test-tls';

/** An app started from its bundle in dist/ (built before the test), in a process of its own. */
export interface BuiltApp {
  /** The port its `listening` log line names. */
  port: number;
  /** The store its `listening` log line names (`pglite`, `postgres`). */
  store: string;
  child: ChildProcess;
}

/**
 * Starts `node dist/apps/<app>/main.js` with `env` (and PATH) in `cwd`, and resolves once it logs
 * `listening`. PGlite loads Node built-ins with dynamic import(), which Jest's module sandbox cannot
 * run, so an app on the embedded store is tested the way it runs: its bundle, in its own process.
 */
export function startBuiltApp(app: string, env: Record<string, string>, cwd: string): Promise<BuiltApp> {
  const child = spawn(process.execPath, [join(repoRoot(), 'dist', 'apps', app, 'main.js')], {
    cwd,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let pending = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const event = JSON.parse(line) as { msg?: string; port?: number; store?: string };
        if (event.msg === 'listening' && event.port) resolve({ port: event.port, store: event.store ?? '', child });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${app} exited with ${code} before listening:\n${output}`)));
  });
}

/** SIGTERM, and its exit code once it has exited. */
export function stopBuiltApp(app: BuiltApp): Promise<number | null> {
  return new Promise((resolve) => {
    app.child.once('exit', (code) => resolve(code));
    app.child.kill('SIGTERM');
  });
}
