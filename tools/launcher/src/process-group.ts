import { ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { READY_MESSAGE } from '@gw/service-kit';

/**
 * The started children, each log line prefixed with its app's name.
 * Each child leads a process group of its own, so that a Ctrl-C reaches the launcher only and
 * the launcher stops them one by one, each before those it calls. Each has an IPC channel to the
 * launcher: through it the child says that it serves, and its closing tells the child that the
 * launcher is gone.
 */
export class ProcessGroup {
  private readonly children = new Map<string, ChildProcess>();
  private stopping = false;

  constructor(private readonly onUnexpectedExit: (app: string, code: number | null) => void) {}

  /**
   * Starts `script`; resolves once that very process says it serves (a reply on its port could
   * come from another program), rejects when it exits first or is not ready within `timeoutMs`.
   */
  start(app: string, script: string, env: Record<string, string>, timeoutMs: number): Promise<void> {
    if (this.stopping) return Promise.reject(new Error('not started: stopping'));
    const child = spawn(process.execPath, ['--enable-source-maps', script], {
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      detached: true,
    });
    const pad = app.padEnd(15);
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream }).on('line', (line) => process.stdout.write(`[${pad}] ${line}\n`));
    }
    child.on('exit', (code) => {
      this.children.delete(app);
      if (!this.stopping) this.onUnexpectedExit(app, code);
    });
    this.children.set(app, child);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready after ${timeoutMs} ms`)), timeoutMs);
      child.on('message', (message) => {
        if (message !== READY_MESSAGE) return;
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', () => {
        clearTimeout(timer);
        reject(new Error('exited before it was ready'));
      });
    });
  }

  /** SIGTERM to each child in the given order (front first), waiting for each to exit. */
  async stopAll(order: string[]): Promise<void> {
    this.stopping = true;
    for (const app of order) {
      const child = this.children.get(app);
      if (!child) continue;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    }
  }
}
