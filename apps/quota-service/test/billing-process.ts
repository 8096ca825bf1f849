import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitReady } from '@gw/service-kit';
import { freePort } from '@gw/testing';

const MAIN = join(__dirname, '..', '..', '..', 'dist', 'apps', 'billing-service', 'main.js');

/**
 * A billing-service process (the bundle the Jest global setup built) on a free port: in plain text
 * on loopback, as the in-process quota-service of most of these tests calls it (GRPC_INSECURE), or
 * with mutual TLS from a certificate folder.
 */
export interface BillingProcess {
  address: string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts billing-service on `databaseUrl` and waits until its health check answers SERVING; with
 * `tlsDir` (its certificate folder) it speaks mutual TLS, else plain text.
 */
export async function startBillingProcess(databaseUrl: string, tlsDir?: string): Promise<BillingProcess> {
  const [port, metricsPort] = await Promise.all([freePort(), freePort()]);
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-billing-'));
  const env = {
    PATH: process.env.PATH ?? '',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    BILLING_PORT: String(port),
    BILLING_METRICS_PORT: String(metricsPort),
    BIND_HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    ...(tlsDir ? { TLS_DIR: tlsDir } : { GRPC_INSECURE: 'true' }),
  };
  const child = spawn(process.execPath, [MAIN], { env, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  const address = `127.0.0.1:${port}`;
  await waitReady({ url: `http://127.0.0.1:${metricsPort}/readyz` }, 30_000, () => child.exitCode === null).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { address, stop };
}
