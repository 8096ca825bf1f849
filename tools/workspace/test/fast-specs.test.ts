import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * What a file imports or calls when it needs a server or a process: a test that does belongs in a
 * `*.test.ts` (the `integration` target), so that `test` (every `*.spec.ts`) runs on a machine
 * without PostgreSQL or Redis, in seconds.
 */
const NEEDS_SERVER =
  /\b(createTestDatabase|createTestRedis|createTestRedisCluster|startRedisCluster|startOwnRedisServer|startStack|startGateway|buildRelease|launchChromium)\b|from '(pg|ioredis|node:child_process|child_process|testcontainers|@electric-sql\/pglite)'/;

describe('the split between the fast test target and the integration target', () => {
  const files = (pattern: string) =>
    execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', pattern], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter(Boolean);

  it('keeps every *.spec.ts free of databases, Redis, started apps and child processes', () => {
    const specs = files('*.spec.ts');
    expect(specs.length).toBeGreaterThan(100);
    const needingServers = specs.filter((spec) => NEEDS_SERVER.test(readFileSync(join(ROOT, spec), 'utf8')));
    expect(needingServers).toEqual([]);
  });

  it('runs *.spec.ts in `test` and *.test.ts in `integration`, and npm test runs both', () => {
    const nx = JSON.parse(readFileSync(join(ROOT, 'nx.json'), 'utf8')) as { targetDefaults: Record<string, { command: string }> };
    expect(nx.targetDefaults.test.command).toContain('--testMatch "**/*.spec.ts"');
    expect(nx.targetDefaults.integration.command).toContain('--testMatch "**/*.test.ts"');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test.split(' ')).toEqual(expect.arrayContaining(['test', 'integration', 'e2e']));
  });

  it('gives a project a test target when it has specs and an integration target when it has *.test.ts (e2e projects run theirs as e2e)', () => {
    const specs = files('*.spec.ts');
    const tests = files('*.test.ts');
    for (const projectJson of files('*project.json')) {
      const root = projectJson.replace(/\/?project\.json$/, '');
      const { targets } = JSON.parse(readFileSync(join(ROOT, projectJson), 'utf8')) as { targets: Record<string, unknown> };
      if ('e2e' in targets) continue;
      const inRoot = (file: string) => file.startsWith(`${root}/`);
      expect({ root, test: 'test' in targets, integration: 'integration' in targets }).toEqual({
        root,
        test: specs.some(inRoot),
        integration: tests.some(inRoot),
      });
    }
  });
});
