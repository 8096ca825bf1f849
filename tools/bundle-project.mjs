// Bundles one project's entry points into dist/<project root>/ with esbuild (node_modules left
// external), and writes beside them the package.json and package-lock.json of exactly the packages
// the bundles require, so an image installs only those.
//   node tools/bundle-project.mjs apps/edge                 -> dist/apps/edge/main.js
//   node tools/bundle-project.mjs bench main floor-proxy    -> dist/bench/main.js, floor-proxy.js
// The bundles are made in a folder of their own and renamed into place, so a process that starts
// one while another build runs never reads half a file.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { prunedLock } from './pruned-lock.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BUILTINS = new Set(builtinModules);

/** How every bundle is made: for Node 22, CommonJS, node_modules left external, with source maps. */
const BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  packages: 'external',
  sourcemap: true,
  metafile: true,
  tsconfig: 'tsconfig.base.json',
  logLevel: 'error',
};

/** The npm package a bare import names (`@scope/name/sub` -> `@scope/name`), or undefined for Node's own. */
export function packageOf(specifier) {
  const name = specifier.replace(/^node:/, '');
  if (specifier.startsWith('node:') || BUILTINS.has(name) || BUILTINS.has(name.split('/')[0])) return undefined;
  const parts = name.split('/');
  return name.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * The packages the bundles require when they load. A package imported only dynamically (PGlite,
 * for local runs without DATABASE_URL) is left to the workspace and out of the images.
 */
function requiredPackages(metafile) {
  const names = new Set();
  for (const output of Object.values(metafile.outputs)) {
    for (const { path, kind, external } of output.imports) {
      const name = external && kind !== 'dynamic-import' ? packageOf(path) : undefined;
      if (name) names.add(name);
    }
  }
  return [...names].sort();
}

/** Bundles `projectRoot`'s src/<entry>.ts files (default: main) into dist/<projectRoot>/. */
export async function bundleProject(projectRoot, entries = ['main']) {
  const outDir = join(ROOT, 'dist', projectRoot);
  mkdirSync(outDir, { recursive: true });
  const workDir = mkdtempSync(join(outDir, '.build-'));
  try {
    const result = await build({
      ...BUNDLE_OPTIONS,
      absWorkingDir: ROOT,
      entryPoints: Object.fromEntries(entries.map((entry) => [entry, `${projectRoot}/src/${entry}.ts`])),
      outdir: workDir,
    });
    const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
    const manifest = {
      name: `${rootPackage.name}-${projectRoot.split('/').pop()}`,
      version: rootPackage.version,
      private: true,
      engines: rootPackage.engines,
      dependencies: Object.fromEntries(
        requiredPackages(result.metafile).map((name) => [name, lock.packages[`node_modules/${name}`].version]),
      ),
    };
    writeFileSync(join(workDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(workDir, 'package-lock.json'), `${JSON.stringify(prunedLock(lock, manifest), null, 2)}\n`);
    for (const file of readdirSync(workDir)) renameSync(join(workDir, file), join(outDir, file));
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  return relative(ROOT, outDir);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [projectRoot, ...entries] = process.argv.slice(2);
  if (!projectRoot) {
    console.error('usage: node tools/bundle-project.mjs PROJECT_ROOT [ENTRY ...]');
    process.exit(2);
  }
  await bundleProject(projectRoot, entries.length ? entries : undefined);
}
