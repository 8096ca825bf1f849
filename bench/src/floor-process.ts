import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { PauseReading } from './process-pauses';

/** The floor proxy running as its own process. */
export interface FloorProcess {
  /** `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  pid: number;
  /** Its event-loop delay and GC pauses so far (see PauseReading). */
  pauses(): Promise<PauseReading>;
  stop(): Promise<void>;
}

/** Starts dist/bench/floor-proxy.js (built beside the bench) in front of `upstream` and waits until it listens. */
export function startFloorProxy(upstream: string): Promise<FloorProcess> {
  const child = spawn(process.execPath, [join(__dirname, 'floor-proxy.js')], {
    env: { ...process.env, FLOOR_UPSTREAM: upstream, FLOOR_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const pauses = () =>
    new Promise<PauseReading>((resolve) => {
      child.once('message', (reading) => resolve(reading as PauseReading));
      child.send('pauses');
    });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`floor proxy exited with ${code}`)));
    child.stdout?.once('data', (line: Buffer) => {
      const port = /listening (\d+)/.exec(line.toString())?.[1];
      if (!port || child.pid === undefined) return reject(new Error(`floor proxy said ${line.toString()}`));
      resolve({ baseUrl: `http://127.0.0.1:${port}/v1`, pid: child.pid, pauses, stop });
    });
  });
}
