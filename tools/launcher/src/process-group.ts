import { ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** The started children, each log line prefixed with its app's name. */
export class ProcessGroup {
  private readonly children = new Map<string, ChildProcess>();
  private stopping = false;

  constructor(private readonly onUnexpectedExit: (app: string, code: number | null) => void) {}

  start(app: string, script: string, env: Record<string, string>): void {
    const child = spawn(process.execPath, ['--enable-source-maps', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const pad = app.padEnd(15);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => process.stdout.write(`[${pad}] ${line}\n`));
    }
    child.on('exit', (code) => {
      this.children.delete(app);
      if (!this.stopping) this.onUnexpectedExit(app, code);
    });
    this.children.set(app, child);
  }

  isRunning(app: string): boolean {
    return this.children.has(app);
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
