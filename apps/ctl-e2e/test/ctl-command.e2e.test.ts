import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';
import { repoRoot } from '@gw/testing';

const CTL = join(repoRoot(), 'tools', 'ctl.mjs');

/**
 * ctl as a command (`npm run -s ctl`, `npx gateway-ctl`): tools/ctl.mjs runs the bundle without
 * building it again, so calls made at the same time each print their JSON (they used to rebuild
 * every bundle at once, and some printed nothing).
 */
describe('ctl as a command (tools/ctl.mjs)', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;

  beforeAll(async () => {
    gw = await startGateway();
    stack = gw.stack;
  }, 90_000);

  afterAll(() => gw?.stop(), 60_000);

  const ctl = (...args: string[]) =>
    new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(process.execPath, [CTL, ...args], { env: { ...stack.env, TLS_DIR: join(stack.tlsRoot, 'ctl') } }, (err, stdout) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }),
      );
    });

  it('answers 20 calls made at once, each with its JSON', async () => {
    const { accountId } = (await stack.ctl('account', 'create', '--name', 'Parallel', '--balance', '2')).json as { accountId: string };
    const calls = await Promise.all(Array.from({ length: 20 }, () => ctl('account', 'show', '--account', accountId)));
    for (const call of calls) {
      expect(call.code).toBe(0);
      expect(JSON.parse(call.stdout)).toMatchObject({ accountId, name: 'Parallel', balance: 2 });
    }
  }, 60_000);

  it('exits non-zero with the error JSON on a refusal, as the bundle does', async () => {
    const refused = await ctl('account', 'show', '--account', 'acct_missing');
    expect(refused.code).not.toBe(0);
    expect(JSON.parse(refused.stdout)).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });
});
