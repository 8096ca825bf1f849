import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const probe = (dir: string) => join(ROOT, dir, `__boundary-probe-${process.pid}.ts`);

interface EslintResult {
  filePath: string;
  messages: { ruleId: string | null; message: string }[];
}

/** Lints the files with the repository's own config and a freshly computed project graph. */
function lint(files: string[]): EslintResult[] {
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/eslint/bin/eslint.js'), '--format', 'json', ...files], {
      cwd: ROOT,
      env: { ...process.env, NX_CACHE_PROJECT_GRAPH: 'false', NX_DAEMON: 'false' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return files.map((filePath) => ({ filePath, messages: [] }));
  } catch (err) {
    return JSON.parse((err as { stdout: string }).stdout) as EslintResult[];
  }
}

describe('module boundaries (the lint fails when they are crossed)', () => {
  const appToApp = probe('apps/edge/src');
  const libToApp = probe('libs/errors/src');
  const appToLib = probe('apps/ctl/src');
  const appToTestLib = probe('apps/billing-service/src');
  const libToTestLib = probe('libs/service-kit/src');
  const testFileToTestLib = probe('apps/billing-service/test').replace(/\.ts$/, '.test.ts');
  const sharedToScoped = probe('libs/money/src');
  const otherScope = probe('apps/edge/src').replace('probe', 'scope-probe');
  const files = [appToApp, libToApp, appToLib, appToTestLib, libToTestLib, testFileToTestLib, sharedToScoped, otherScope];

  beforeAll(() => {
    writeFileSync(appToApp, "import { loadConfig } from '../../auth-service/src/config';\nexport const probe = loadConfig;\n");
    writeFileSync(libToApp, "import { loadConfig } from '../../../apps/edge/src/config';\nexport const probe = loadConfig;\n");
    writeFileSync(appToLib, "import { parseLyd } from '@gw/money';\nexport const probe = parseLyd;\n");
    const usesTestLib = "import { freePort } from '@gw/testing';\nexport const probe = freePort;\n";
    [appToTestLib, libToTestLib, testFileToTestLib].forEach((file) => writeFileSync(file, usesTestLib));
    const usesQuotaClient = "import { ChatProductQuota } from '@gw/quota-client';\nexport const probe = ChatProductQuota;\n";
    [sharedToScoped, otherScope].forEach((file) => writeFileSync(file, usesQuotaClient));
  });
  afterAll(() => files.forEach((f) => rmSync(f, { force: true })));

  it('refuses an app importing another app and a lib importing an app, and allows an app importing a lib', () => {
    const results = lint([appToApp, libToApp, appToLib]);
    const boundaryErrors = (file: string) =>
      results.find((r) => r.filePath === file)?.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries') ?? [];
    expect(boundaryErrors(appToApp)).toHaveLength(1);
    expect(boundaryErrors(libToApp)).toHaveLength(1);
    expect(boundaryErrors(appToLib)).toHaveLength(0);
  }, 60_000);

  it('keeps the test-only libs (type:test) out of code that ships, and lets test files use them', () => {
    const results = lint([appToTestLib, libToTestLib, testFileToTestLib]);
    const boundaryErrors = (file: string) =>
      results.find((r) => r.filePath === file)?.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries') ?? [];
    expect(boundaryErrors(appToTestLib).map((m) => m.message)).toEqual([expect.stringContaining('type:lib')]);
    expect(boundaryErrors(libToTestLib)).toHaveLength(1);
    expect(boundaryErrors(testFileToTestLib)).toHaveLength(0);
  }, 60_000);

  it("keeps a scope's libs to that scope: neither a shared lib nor the edge may use quota's client", () => {
    const results = lint([sharedToScoped, otherScope]);
    const boundaryErrors = (file: string) =>
      results.find((r) => r.filePath === file)?.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries') ?? [];
    expect(boundaryErrors(sharedToScoped).map((m) => m.message)).toEqual([expect.stringContaining('scope:shared')]);
    expect(boundaryErrors(otherScope).map((m) => m.message)).toEqual([expect.stringContaining('scope:edge')]);
  }, 60_000);
});
