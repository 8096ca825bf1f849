import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@gw/testing';

const run = promisify(execFile);

/** An older release's build, for startStack's distOf. */
export interface BuiltRelease {
  /** Its dist/apps folder. */
  dist: string;
  /** Removes its checkout and build. */
  remove(): Promise<void>;
}

/**
 * Builds `apps` as they were at `commit` of this repository (a git worktree beside the tests,
 * on this checkout's node_modules), so that a test can run them beside the current build: the
 * services of a rolling upgrade, where old and new versions serve at once. The commit must be in
 * this clone's history; a clone without it fails here, saying so.
 */
export async function buildRelease(commit: string, apps: string[]): Promise<BuiltRelease> {
  const root = repoRoot(__dirname);
  await run('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: root }).catch(() => {
    throw new Error(
      `release ${commit} is not in this clone's history: a rolling-upgrade test builds it from there (clone without --depth)`,
    );
  });
  const dir = mkdtempSync(join(tmpdir(), 'gw-release-'));
  const checkout = join(dir, 'repo');
  await run('git', ['worktree', 'add', '--detach', checkout, commit], { cwd: root });
  const remove = async () => {
    await run('git', ['worktree', 'remove', '--force', checkout], { cwd: root }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    await run('git', ['worktree', 'prune'], { cwd: root }).catch(() => undefined);
  };
  try {
    symlinkSync(join(root, 'node_modules'), join(checkout, 'node_modules'));
    const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_SKIP_NX_CACHE: 'true' };
    await run(
      process.execPath,
      [join(root, 'node_modules', 'nx', 'dist', 'bin', 'nx.js'), 'run-many', '-t', 'build', '-p', ...apps, '--output-style=static'],
      { cwd: checkout, env, maxBuffer: 16 << 20 },
    );
  } catch (err) {
    await remove();
    throw err;
  }
  return { dist: join(checkout, 'dist', 'apps'), remove };
}
