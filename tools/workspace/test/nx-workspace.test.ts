import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { waitReady } from '@gw/service-kit';
import { freePort } from '@gw/testing';

const ROOT = join(__dirname, '..', '..', '..');
/** The way from a project's folder back to the workspace root, as its tsconfig's `extends` spells it. */
const relativeTo = (root: string) =>
  root
    .split('/')
    .map(() => '..')
    .join('/');
const STACK = ['auth-service', 'billing-service', 'console', 'edge', 'notifier', 'provider-sim', 'quota-service'];

/**
 * Nx is asked about a copy of the workspace (its files as git sees them, node_modules linked), in
 * a git repository of its own, so that builds, caches and changes made here never touch the
 * workspace that other tests are running from.
 */
function copyWorkspace(): string {
  const copy = mkdtempSync(join(tmpdir(), 'nx-workspace-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && !file.includes('__boundary-probe-') && existsSync(join(ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(ROOT, file), join(copy, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: copy, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=test', '-c', 'user.email=test@localhost', 'commit', '-q', '-m', 'base');
  return copy;
}

describe('the Nx workspace: projects, graph, affected and the build cache', () => {
  let copy: string;
  // The copy's own cache and workspace data (an outer Nx run may have set these to the workspace's).
  const env = { ...process.env };
  delete env.NX_CACHE_DIRECTORY;
  delete env.NX_WORKSPACE_DATA_DIRECTORY;
  const nxBin = join(ROOT, 'node_modules', 'nx', require('nx/package.json').bin.nx);
  const nx = (...args: string[]) =>
    execFileSync(process.execPath, [nxBin, ...args], {
      cwd: copy,
      encoding: 'utf8',
      env: { ...env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false', CI: 'true', FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const affected = (file: string) => {
    appendFileSync(join(copy, file), '\n// changed\n');
    try {
      return nx('show', 'projects', '--affected', '--base=main', '--json');
    } finally {
      execFileSync('git', ['checkout', '--', file], { cwd: copy });
    }
  };

  beforeAll(() => {
    copy = copyWorkspace();
  }, 60_000);
  afterAll(() => copy && rmSync(copy, { recursive: true, force: true }));

  it('shows every app, lib, tool and end-to-end project', () => {
    const projects = JSON.parse(nx('show', 'projects', '--json')) as string[];
    expect(projects.sort()).toEqual(
      [
        ...STACK,
        'ctl',
        ...[
          'app-settings',
          'bounds',
          'chat-validation',
          'contracts',
          'dev-pki',
          'errors',
          'identity',
          'money',
          'quota-client',
          'service-kit',
          'telemetry',
          'test-stack',
          'testing',
        ],
        ...['console-e2e', 'ctl-e2e', 'edge-e2e', 'edge-faults-e2e', 'launcher-e2e', 'notifier-e2e', 'quota-service-e2e'],
        ...['bench', 'deploy-check', 'launcher', 'workspace'],
      ].sort(),
    );
    const e2eProjects = JSON.parse(nx('show', 'projects', '--with-target', 'e2e', '--json')) as string[];
    expect(e2eProjects.sort()).toEqual([
      'console-e2e',
      'ctl-e2e',
      'edge-e2e',
      'edge-faults-e2e',
      'launcher-e2e',
      'notifier-e2e',
      'quota-service-e2e',
    ]);
    expect(JSON.parse(nx('show', 'projects', '--projects', 'tag:type:test', '--json')).sort()).toEqual(['test-stack', 'testing']);
  }, 60_000);

  it("checks every project's code in the one typecheck npm test runs: each tsconfig is the base settings over its own folder, inside the root program", () => {
    nx('graph', '--file', join(copy, 'graph-nodes.json'));
    const { graph } = JSON.parse(readFileSync(join(copy, 'graph-nodes.json'), 'utf8')) as {
      graph: { nodes: Record<string, { data: { root: string } }> };
    };
    const roots = Object.values(graph.nodes).map((node) => node.data.root);
    expect(roots).toHaveLength(32);
    const rootProgram = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
    for (const root of roots) {
      const base = join(relativeTo(root), 'tsconfig.base.json');
      expect({ root, tsconfig: JSON.parse(readFileSync(join(ROOT, root, 'tsconfig.json'), 'utf8')) }).toEqual({
        root,
        tsconfig: { extends: base, compilerOptions: { noEmit: true }, include: ['**/*.ts'] },
      });
      expect(rootProgram.include).toContain(`${root.split('/')[0]}/**/*.ts`);
    }
  }, 60_000);

  it('draws the graph from the imports: apps on libs, end-to-end projects on the apps they start', () => {
    nx('graph', '--file', join(copy, 'graph.json'));
    const { graph } = JSON.parse(readFileSync(join(copy, 'graph.json'), 'utf8')) as {
      graph: { dependencies: Record<string, { target: string; type: string }[]> };
    };
    const dependsOn = (project: string) => graph.dependencies[project].map((d) => d.target).sort();
    expect(dependsOn('edge')).toEqual(expect.arrayContaining(['chat-validation', 'contracts', 'errors', 'service-kit']));
    // No app depends on another, but for the quota-service tests that run billing-service's build.
    const apps = [...STACK, 'ctl'];
    const appEdges = apps.flatMap((app) =>
      dependsOn(app)
        .filter((dep) => apps.includes(dep))
        .map((dep) => `${app} -> ${dep}`),
    );
    expect(appEdges).toEqual(['quota-service -> billing-service']);
    expect(dependsOn('edge-e2e')).toEqual(expect.arrayContaining([...STACK, 'test-stack', 'testing']));
    // The published client compiles in quota.v1 as generated in contracts, and needs no other lib.
    expect(dependsOn('quota-client')).toEqual(['contracts']);
  }, 60_000);

  it('marks what a change affects: a change in quota-service marks the end-to-end tests of the edge, not the edge', () => {
    const quotaChange = JSON.parse(affected('apps/quota-service/src/config.ts')) as string[];
    expect(quotaChange).toEqual(
      expect.arrayContaining([
        'quota-service',
        'quota-service-e2e',
        'edge-e2e',
        'edge-faults-e2e',
        'ctl-e2e',
        'console-e2e',
        'launcher-e2e',
      ]),
    );
    expect(quotaChange).not.toEqual(expect.arrayContaining(['edge']));
    expect(quotaChange).not.toEqual(expect.arrayContaining(['auth-service']));

    const libChange = JSON.parse(affected('libs/errors/src/index.ts')) as string[];
    expect(libChange).toEqual(expect.arrayContaining(['errors', 'edge', 'edge-e2e']));
    expect(libChange).not.toEqual(expect.arrayContaining(['provider-sim', 'quota-client']));

    expect(JSON.parse(affected('k8s/base/edge/deployment.yaml'))).toEqual(['deploy-check']);
    expect(JSON.parse(affected('proto/quota/v1/quota.proto'))).toEqual(expect.arrayContaining(['contracts', 'quota-service', 'edge-e2e']));
  }, 120_000);

  it('serves a second build from the cache, and rebuilds only what a change reaches', () => {
    const builds = ['-t', 'build', '--output-style=static'];
    expect(nx('run-many', ...builds)).toMatch(/Successfully ran target build for 11 projects/);
    expect(nx('run-many', ...builds)).toMatch(/Nx read the output from the cache instead of running the command for 11 out of 11 tasks/);

    // chat-validation is the edge's (and quota-service's) alone: provider-sim and the client do not import it.
    appendFileSync(join(copy, 'libs/chat-validation/src/index.ts'), '\nexport const BUILD_CACHE_PROBE = 1;\n');
    const afterChange = nx('run-many', ...builds);
    const fromCache = [...afterChange.matchAll(/nx run ([\w-]+):build\s+\[local cache\]/g)].map((m) => m[1]).sort();
    expect(fromCache).not.toContain('edge');
    expect(fromCache).toEqual(expect.arrayContaining(['provider-sim', 'quota-client']));
  }, 240_000);

  it("writes beside each app's bundle the dependencies its image installs, and only those", () => {
    nx('run-many', '-t', 'build', '--output-style=static');
    const dependencies = (app: string) =>
      Object.keys(
        (JSON.parse(readFileSync(join(copy, 'dist', 'apps', app, 'package.json'), 'utf8')) as { dependencies: object }).dependencies,
      );
    for (const app of [...STACK, 'ctl']) {
      expect(dependencies(app)).not.toContain('@electric-sql/pglite');
      expect(dependencies(app)).toEqual(expect.arrayContaining(['@grpc/grpc-js']));
      const lock = JSON.parse(readFileSync(join(copy, 'dist', 'apps', app, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, object>;
      };
      for (const name of dependencies(app)) expect(lock.packages[`node_modules/${name}`]).toBeDefined();
    }
    expect(dependencies('edge')).toEqual(expect.arrayContaining(['gpt-tokenizer', 'undici']));
    expect(dependencies('edge')).not.toContain('pg');
    expect(dependencies('quota-service')).toEqual(expect.arrayContaining(['ioredis']));
    expect(dependencies('quota-service')).not.toContain('pg');
    for (const app of ['auth-service', 'billing-service', 'console', 'notifier']) expect(dependencies(app)).toContain('pg');
    expect(dependencies('notifier')).toContain('nodemailer');
    for (const app of ['auth-service', 'billing-service', 'quota-service', 'provider-sim', 'ctl', 'console'])
      expect(dependencies(app)).not.toContain('gpt-tokenizer');
  }, 120_000);

  it("installs an image's dependencies from that lock file alone, and the app runs on them", async () => {
    nx('run', 'provider-sim:build');
    const image = join(copy, 'image-provider-sim');
    mkdirSync(image);
    for (const file of ['package.json', 'package-lock.json', 'main.js'])
      cpSync(join(copy, 'dist/apps/provider-sim', file), join(image, file));
    // As the Dockerfile's prod-deps stage does; the packages come from npm's cache, which the
    // workspace's `npm ci` filled, and from the registry where this machine's lock file leaves
    // the download address out.
    execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: image,
      stdio: 'ignore',
    });
    const port = await freePort();
    const sim = spawn(process.execPath, [join(image, 'main.js')], {
      cwd: image,
      env: { PATH: process.env.PATH, PROVIDER_SIM_PORT: String(port) },
      stdio: 'ignore',
    });
    try {
      await waitReady({ url: `http://127.0.0.1:${port}/healthz` }, 10_000, () => sim.exitCode === null);
    } finally {
      sim.kill('SIGTERM');
    }
  }, 120_000);

  it('fails the contract check on a change that breaks a released contract, and passes an addition', () => {
    const proto = join(copy, 'proto/quota/v1/quota.proto');
    const released = readFileSync(proto, 'utf8');
    const breaking = () => {
      try {
        return { passed: true, output: nx('run', 'contracts:breaking', '--skip-nx-cache', '--output-style=static') };
      } catch (err) {
        return { passed: false, output: String((err as { stdout: string }).stdout) };
      }
    };
    try {
      writeFileSync(proto, released.replace('int32 retry_after_seconds = 5;', 'int32 retry_after_seconds = 7;'));
      const renumbered = breaking();
      expect(renumbered.passed).toBe(false);
      expect(renumbered.output).toMatch(/CountRequestResponse/);
      writeFileSync(
        proto,
        released.replace(
          'int32 retry_after_seconds = 5;',
          'int32 retry_after_seconds = 5;\n  // Added after the release.\n  int32 burst_remaining = 7;',
        ),
      );
      expect(breaking()).toEqual({ passed: true, output: expect.stringContaining('keeps every contract of the last release') });
    } finally {
      writeFileSync(proto, released);
    }
  }, 60_000);

  it("releases the chat product's client with nx release: a new version of libs/quota-client, its built package and the contracts baseline", () => {
    const planned = nx('release', 'version', '1.2.0', '--dry-run');
    expect(planned).toMatch(/Resolved the current version as 1\.1\.0 from manifest: libs\/quota-client\/package\.json/);
    expect(planned).toMatch(/New version 1\.2\.0 written to manifest: libs\/quota-client\/package\.json/);
    // The pre-version command built the package and wrote the baseline buf breaking compares with.
    const manifest = JSON.parse(readFileSync(join(copy, 'dist/libs/quota-client/package.json'), 'utf8')) as {
      name: string;
      main: string;
      types: string;
      dependencies: object;
    };
    expect(manifest).toMatchObject({ name: '@chat-gateway/quota-client', main: './index.js', types: './index.d.ts' });
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@bufbuild/protobuf', '@grpc/grpc-js']);
    for (const file of [
      'index.js',
      'index.d.ts',
      'chat-product-quota.js',
      'gen/quota/v1/quota.js',
      'gen/quota/v1/quota.d.ts',
      'README.md',
    ]) {
      expect({ file, there: existsSync(join(copy, 'dist/libs/quota-client', file)) }).toEqual({ file, there: true });
    }
    execFileSync(join(ROOT, 'node_modules/.bin/buf'), ['build', '--exclude-source-info', '-o', join(copy, 'now.binpb')], { cwd: copy });
    expect(readFileSync(join(copy, 'libs/contracts/api/last-release.binpb')).equals(readFileSync(join(copy, 'now.binpb')))).toBe(true);
  }, 120_000);
});
