import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { freePort } from '@gw/testing';

const LAUNCHER = join(__dirname, '..', '..', '..', 'dist', 'tools', 'launcher', 'main.js');

interface Launch {
  child: ChildProcess;
  output: string[];
  ready: Promise<void>;
}

/** Starts `npm start`'s launcher with no stores configured: PGlite, in-memory limits, provider-sim. */
function launch(env: Record<string, string>): Launch {
  const child = spawn(process.execPath, [LAUNCHER], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output.push(...d.toString('utf8').split('\n'));
      if (output.some((l) => l.includes('the API is at'))) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`launcher exited with ${code}:\n${output.join('\n')}`)));
  });
  return { child, output, ready };
}

function stop(l: Launch): Promise<number | null> {
  return new Promise((resolve) => {
    if (l.child.exitCode !== null) return resolve(l.child.exitCode);
    l.child.once('exit', (code) => resolve(code));
    l.child.kill('SIGTERM');
  });
}

describe('npm start on embedded defaults (no DATABASE_URL, REDIS_URL or PROVIDER_BASE_URL)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-launcher-'));
  let env: Record<string, string>;
  const running: Launch[] = [];

  beforeAll(async () => {
    const [edge, admin, auth, quota, billing, sim, authMetrics, quotaMetrics, billingMetrics, consoleHttp, consoleGrpc, consoleMetrics] = await Promise.all(Array.from({ length: 12 }, freePort));
    env = {
      PATH: process.env.PATH ?? '',
      DATA_DIR: dataDir,
      EDGE_PORT: String(edge),
      EDGE_ADMIN_PORT: String(admin),
      AUTH_PORT: String(auth),
      QUOTA_PORT: String(quota),
      BILLING_PORT: String(billing),
      PROVIDER_SIM_PORT: String(sim),
      AUTH_METRICS_PORT: String(authMetrics),
      QUOTA_METRICS_PORT: String(quotaMetrics),
      BILLING_METRICS_PORT: String(billingMetrics),
      CONSOLE_PORT: String(consoleHttp),
      CONSOLE_GRPC_PORT: String(consoleGrpc),
      CONSOLE_METRICS_PORT: String(consoleMetrics),
    };
  });

  afterAll(async () => {
    await Promise.all(running.map(stop));
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('prints a demo key once, answers with it, and still answers with it after a restart; serves the console with an invitation for the demo holder', async () => {
    const first = launch(env);
    running.push(first);
    await first.ready;
    const key = first.output.join('\n').match(/sk-shfr-[0-9a-f]{40}/)?.[0];
    expect(key).toBeDefined();
    const client = new OpenAI({ baseURL: `http://127.0.0.1:${env.EDGE_PORT}/v1`, apiKey: key, maxRetries: 0 });
    const ask = () => client.chat.completions.create({ model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'Hello' }] });
    expect((await ask()).choices[0].message.content).toEqual(expect.any(String));
    // The console serves too, with a one-time link for the demo account's holder.
    const link = first.output.join('\n').match(/sets a password at (http:\S+)/)?.[1] ?? '';
    expect(link.startsWith(`http://127.0.0.1:${env.CONSOLE_PORT}/invite/`)).toBe(true);
    const invitePage = await fetch(link);
    expect(invitePage.status).toBe(200);
    expect(await invitePage.text()).toContain('demo@example.com');
    expect(await stop(first)).toBe(0);

    const second = launch(env);
    running.push(second);
    await second.ready;
    expect(second.output.join('\n')).not.toMatch(/sk-shfr-/);
    expect((await ask()).object).toBe('chat.completion');
    expect(await stop(second)).toBe(0);
  }, 120_000);
});
