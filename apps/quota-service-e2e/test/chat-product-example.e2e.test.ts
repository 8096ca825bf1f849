import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';
import { repoRoot } from '@gw/testing';

const ROOT = repoRoot();
const PACKAGE = join(ROOT, 'dist', 'libs', 'quota-client');

/** The first ```ts block after `heading` in a Markdown file. */
function codeAfter(file: string, heading: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const from = text.indexOf(heading);
  expect(from).toBeGreaterThanOrEqual(0);
  const block = /```ts\n([\s\S]*?)```/.exec(text.slice(from));
  if (!block) throw new Error(`${file} has no TypeScript example after ${heading}`);
  return block[1];
}

/**
 * The chat-product example of docs/chat-product.md, as the chat product would run it: written to a project of its
 * own that has @chat-gateway/quota-client as built for publishing (dist/libs/quota-client), type
 * checked against the package's declarations, and run against the whole stack with the chat
 * product's certificate.
 */
describe("docs/chat-product.md's example, through @chat-gateway/quota-client", () => {
  const example = codeAfter('docs/chat-product.md', '# The chat product and quota-service');
  const project = join(ROOT, 'test-output', `chat-product-example-${process.pid}`);
  let gw: GatewayUnderTest;
  let stack: RunningStack;

  beforeAll(async () => {
    gw = await startGateway();
    stack = gw.stack;
    mkdirSync(join(project, 'node_modules', '@chat-gateway'), { recursive: true });
    symlinkSync(PACKAGE, join(project, 'node_modules', '@chat-gateway', 'quota-client'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'chat-product-example', private: true, type: 'module' }));
    writeFileSync(join(project, 'chat-turn.ts'), example);
  }, 90_000);

  afterAll(async () => {
    rmSync(project, { recursive: true, force: true });
    await gw?.stop();
  }, 60_000);

  it('is the example the package README gives', () => {
    expect(codeAfter('libs/quota-client/README.md', '# @chat-gateway/quota-client')).toBe(example);
  });

  it("type-checks against the package's declarations", () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: ['node'] },
        files: ['chat-turn.ts'],
      }),
    );
    expect(() =>
      execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], { encoding: 'utf8', stdio: 'pipe' }),
    ).not.toThrow();
  }, 60_000);

  it('counts a turn, takes and gives back a place, and adds its tokens to the usage the API shares', async () => {
    const { accountId } = (await stack.ctl('account', 'create', '--balance', '1')).json as { accountId: string };
    writeFileSync(join(project, 'chat-turn.mjs'), transformSync(example, { loader: 'ts', format: 'esm', target: 'node22' }).code);
    const quotaPort = stack.env.QUOTA_ADDR.split(':').pop();
    const run = () =>
      execFileSync(process.execPath, [join(project, 'chat-turn.mjs')], {
        cwd: project,
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          QUOTA_ADDR: `localhost:${quotaPort}`,
          TLS_DIR: join(stack.tlsRoot, 'chat-product'),
          ACCOUNT_ID: accountId,
        },
      })
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));

    expect(run()).toEqual([
      { answered: true, tokens: { promptTokens: 12, completionTokens: 30 } },
      { todayTokens: 42, totalTokens: 42 },
    ]);
    // The place went back: three more turns, one after another, each get one.
    for (let turn = 2; turn <= 4; turn++) expect(run()[1]).toEqual({ todayTokens: 42 * turn, totalTokens: 42 * turn });
    expect((await stack.ctl('usage', 'show', '--account', accountId)).json).toEqual({ todayTokens: 168, totalTokens: 168 });
  }, 60_000);
});
