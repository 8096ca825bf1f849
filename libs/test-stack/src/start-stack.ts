import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readiness, waitReady } from '@gw/service-kit';
import { freePort } from '@gw/testing';

const DIST = join(__dirname, '..', '..', '..', 'dist', 'apps');

/** Where the stack's stores are. */
export interface StackOptions {
  databaseUrl: string;
  redisUrl: string;
  redisKeyPrefix: string;
  /** Extra environment for every process (limits, timeouts...). */
  env?: Record<string, string>;
}

/** A running stack of real processes on loopback. */
export interface RunningStack {
  /** The client base address, `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  providerUrl: string;
  env: Record<string, string>;
  /** Every log line the processes wrote, for assertions about what is (not) logged. */
  logs: string[];
  /** Runs the operator CLI against this stack: parsed JSON output and exit code. */
  ctl(...args: string[]): Promise<{ json: unknown; exitCode: number }>;
  /** SIGTERM to every process (edge first), waiting for each to exit. */
  stop(): Promise<void>;
}

/**
 * Starts provider-sim, auth-, quota- and billing-service and the edge from `dist/` (built by
 * the Jest global setup) as separate processes, on free ports, against the given stores.
 */
export async function startStack(options: StackOptions): Promise<RunningStack> {
  const [edge, admin, auth, quota, billing, sim] = await Promise.all(Array.from({ length: 6 }, freePort));
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-stack-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    LOG_LEVEL: 'info',
    BIND_HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    REDIS_KEY_PREFIX: options.redisKeyPrefix,
    EDGE_PORT: String(edge),
    EDGE_ADMIN_PORT: String(admin),
    AUTH_PORT: String(auth),
    QUOTA_PORT: String(quota),
    BILLING_PORT: String(billing),
    PROVIDER_SIM_PORT: String(sim),
    AUTH_ADDR: `127.0.0.1:${auth}`,
    QUOTA_ADDR: `127.0.0.1:${quota}`,
    BILLING_ADDR: `127.0.0.1:${billing}`,
    PROVIDER_BASE_URL: `http://127.0.0.1:${sim}/v1`,
    PROVIDER_API_KEY: 'gateway-own-provider-key',
    ...options.env,
  };
  const plan: [string, Readiness][] = [
    ['provider-sim', { kind: 'http', url: `http://127.0.0.1:${sim}/healthz` }],
    ['auth-service', { kind: 'grpc', address: env.AUTH_ADDR }],
    ['quota-service', { kind: 'grpc', address: env.QUOTA_ADDR }],
    ['billing-service', { kind: 'grpc', address: env.BILLING_ADDR }],
    ['edge', { kind: 'http', url: `http://127.0.0.1:${admin}/readyz` }],
  ];
  const logs: string[] = [];
  const children: [string, ChildProcess][] = [];
  const stop = async () => {
    for (const [, child] of [...children].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await Promise.all(
      plan.map(async ([app, readiness]) => {
        const child = spawn(process.execPath, [join(DIST, app, 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        children.push([app, child]);
        child.stdout?.on('data', (d: Buffer) => logs.push(...d.toString('utf8').split('\n').filter(Boolean)));
        child.stderr?.on('data', (d: Buffer) => logs.push(...d.toString('utf8').split('\n').filter(Boolean)));
        await waitReady(readiness, 30_000, () => child.exitCode === null).catch((err: Error) => {
          throw new Error(`${app} did not start: ${err.message}\n${logs.slice(-20).join('\n')}`);
        });
      }),
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    baseUrl: `http://127.0.0.1:${edge}/v1`,
    providerUrl: env.PROVIDER_BASE_URL,
    env,
    logs,
    ctl: (...args) =>
      new Promise((resolve) => {
        execFile(process.execPath, [join(DIST, 'ctl', 'main.js'), ...args], { env }, (err, stdout) => {
          resolve({ json: JSON.parse(stdout), exitCode: err ? Number((err as { code?: number }).code ?? 1) : 0 });
        });
      }),
    stop,
  };
}
