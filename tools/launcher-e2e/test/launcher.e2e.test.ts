import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { Launch, stackEnv, stackPorts, startLauncher } from './launch';
import { portsInUse } from './ports-in-use';
import { killAll, processTree, survivors } from './process-tree';

describe('npm start on embedded defaults (no DATABASE_URL, REDIS_URL or PROVIDER_BASE_URL)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-launcher-'));
  let env: Record<string, string>;
  const started: number[][] = [];

  /** Waits for the launcher to be ready and notes it and every process it started. */
  async function ready(launch: Launch): Promise<number[]> {
    await launch.ready;
    const tree = processTree(launch.child.pid ?? 0);
    started.push(tree);
    return tree;
  }

  /** Sends `signal` to the launcher's pid; resolves with its exit code once it exited. */
  function stop(launch: Launch, signal: NodeJS.Signals): Promise<number | null> {
    launch.child.kill(signal);
    return launch.exited;
  }

  beforeAll(async () => {
    env = await stackEnv(dataDir);
  });

  afterAll(() => {
    killAll(started.flat());
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints a demo key once, answers with it, and still answers with it after a restart; serves the console with an invitation for the demo holder; SIGTERM and SIGHUP to the launcher pid each stop every service', async () => {
    const first = startLauncher(env);
    const firstTree = await ready(first);
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
    expect(await stop(first, 'SIGTERM')).toBe(0);
    expect(await survivors(firstTree, 30_000)).toEqual([]);
    expect(await portsInUse(stackPorts(env))).toEqual([]);

    const second = startLauncher(env);
    const secondTree = await ready(second);
    expect(second.output.join('\n')).not.toMatch(/sk-shfr-/);
    expect((await ask()).object).toBe('chat.completion');
    // A closed terminal hangs up.
    expect(await stop(second, 'SIGHUP')).toBe(0);
    expect(await survivors(secondTree, 30_000)).toEqual([]);
    expect(await portsInUse(stackPorts(env))).toEqual([]);
  }, 150_000);
});
