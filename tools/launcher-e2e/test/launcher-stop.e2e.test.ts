import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { Launch, npmStart, stackEnv, stackPorts, startLauncher } from './launch';
import { portsInUse } from './ports-in-use';
import { killAll, processTree, survivors } from './process-tree';

/** The services in the order the launcher stops them: each before those it calls. */
const STOP_ORDER = ['notifier', 'console', 'edge', 'billing-service', 'quota-service', 'auth-service', 'provider-sim'];
const STOPPED_WITHIN_MS = 30_000;
const START_TIMEOUT_MS = 120_000;

/** Each service's "shutting down" log lines, in the order they came: [app, signal or reason]. */
function shutdowns(output: string[]): string[][] {
  return output.flatMap((line) => {
    const m = line.match(/^\[(\S+)\s*\] (\{.*\})$/);
    const event = m ? (JSON.parse(m[2]) as { msg?: string; signal?: string }) : undefined;
    return m && event?.msg === 'shutting down' ? [[m[1], event.signal ?? '']] : [];
  });
}

describe('stopping npm start, and starting it twice', () => {
  // One data folder for the file: after the first, each start is a restart, much quicker than a first.
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-launcher-stop-'));
  const started: number[][] = [];
  const freshEnv = () => stackEnv(dataDir);

  /** Waits for the stack to be ready and notes npm (or the launcher) and every process below it. */
  async function ready(launch: Launch): Promise<number[]> {
    await launch.ready;
    const tree = processTree(launch.child.pid ?? 0);
    started.push(tree);
    return tree;
  }

  afterAll(() => {
    killAll(started.flat());
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('while npm start serves', () => {
    let env: Record<string, string>;
    let npm: Launch;
    let tree: number[];

    // The file's first start on its data folder: it prints the demo key.
    beforeAll(async () => {
      env = await freshEnv();
      npm = npmStart(env);
      tree = await ready(npm);
    }, START_TIMEOUT_MS);

    it('a second start refuses, naming the ports taken, prints no ready, exits non-zero, and the first stack still serves', async () => {
      const second = startLauncher(env);
      const code = await second.exited;
      const text = second.output.join('\n');
      expect(code).not.toBe(0);
      expect(text).not.toMatch(/is ready|the API is at/);
      expect(text).toContain(`${env.EDGE_PORT} (EDGE_PORT)`);
      expect(text).toContain(`${env.CONSOLE_PORT} (CONSOLE_PORT)`);
      expect(await survivors(tree, 0)).toEqual(tree);
      const key = npm.output.join('\n').match(/sk-shfr-[0-9a-f]{40}/)?.[0];
      const client = new OpenAI({ baseURL: `http://127.0.0.1:${env.EDGE_PORT}/v1`, apiKey: key, maxRetries: 0 });
      const reply = await client.chat.completions.create({ model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'Hello' }] });
      expect(reply.object).toBe('chat.completion');
    }, 60_000);

    it("SIGTERM to npm's pid stops the launcher and every service and frees every port; npm exits 0", async () => {
      process.kill(npm.child.pid ?? 0, 'SIGTERM');
      expect(await npm.exited).toBe(0);
      expect(await survivors(tree, STOPPED_WITHIN_MS)).toEqual([]);
      expect(await portsInUse(stackPorts(env))).toEqual([]);
    }, 60_000);
  });

  it('a start refuses when one port it needs is taken by another program, naming it, and starts nothing', async () => {
    const env = await freshEnv();
    const stranger: Server = createServer();
    await new Promise<void>((resolve) => stranger.listen(Number(env.CONSOLE_METRICS_PORT), '127.0.0.1', resolve));
    try {
      const launch = startLauncher(env);
      const code = await launch.exited;
      const text = launch.output.join('\n');
      expect(code).not.toBe(0);
      expect(text).toContain(`${env.CONSOLE_METRICS_PORT} (CONSOLE_METRICS_PORT)`);
      expect(text).not.toContain(`(EDGE_PORT)`);
      // Only the launcher spoke: no service was started.
      expect(launch.output.filter((l) => l.startsWith('[') && !l.startsWith('[launcher'))).toEqual([]);
    } finally {
      await new Promise((resolve) => stranger.close(resolve));
    }
  }, 60_000);

  it(
    'Ctrl-C (SIGINT to the whole foreground job) stops each service once, from the launcher, each before those it calls',
    async () => {
      const env = await freshEnv();
      const npm = npmStart(env);
      const tree = await ready(npm);
      process.kill(-(npm.child.pid ?? 0), 'SIGINT');
      await npm.exited;
      expect(await survivors(tree, STOPPED_WITHIN_MS)).toEqual([]);
      expect(await portsInUse(stackPorts(env))).toEqual([]);
      expect(shutdowns(npm.output)).toEqual(STOP_ORDER.map((app) => [app, 'SIGTERM']));
      expect(npm.output.join('\n')).not.toContain('second signal');
    },
    START_TIMEOUT_MS,
  );

  it(
    "SIGHUP to npm's pid, which npm does not pass on, stops the launcher and every service too",
    async () => {
      const env = await freshEnv();
      const npm = npmStart(env);
      const tree = await ready(npm);
      process.kill(npm.child.pid ?? 0, 'SIGHUP');
      await npm.exited;
      expect(await survivors(tree, STOPPED_WITHIN_MS)).toEqual([]);
      expect(await portsInUse(stackPorts(env))).toEqual([]);
    },
    START_TIMEOUT_MS,
  );

  it(
    "SIGKILL to the launcher's pid: every service notices its launcher is gone, stops, and frees its ports",
    async () => {
      const env = await freshEnv();
      const launcher = startLauncher(env);
      const tree = await ready(launcher);
      launcher.child.kill('SIGKILL');
      await launcher.exited;
      expect(await survivors(tree, STOPPED_WITHIN_MS)).toEqual([]);
      expect(await portsInUse(stackPorts(env))).toEqual([]);
    },
    START_TIMEOUT_MS,
  );
});
