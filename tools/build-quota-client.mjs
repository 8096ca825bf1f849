// Builds @chat-gateway/quota-client into dist/libs/quota-client, the folder `nx release` publishes.
// quota.v1 is generated once, in libs/contracts; the package carries a compiled copy of it, so the
// chat product installs no lib of this workspace. The package's sources and the generated files
// they take from libs/contracts are put together in a folder of their own, the workspace import
// replaced by the generated module, and compiled with libs/quota-client/tsconfig.lib.json.
// The build fails when the compiled package requires a package its package.json does not list,
// or lists one it does not require.
//   node tools/build-quota-client.mjs
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageOf } from './bundle-project.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PROJECT = join(ROOT, 'libs/quota-client');
const GENERATED = join(ROOT, 'libs/contracts/src/gen');
const OUT = join(ROOT, 'dist/libs/quota-client');

/**
 * What the package's sources take from libs/contracts (`import { quotaV1 } from '@gw/contracts'`,
 * or `export`) and the generated module that is that namespace in the package.
 */
const FROM_CONTRACTS = { binding: 'quotaV1', generated: 'quota/v1/quota' };
const CONTRACTS_IMPORT = new RegExp(`^(import|export) \\{ ${FROM_CONTRACTS.binding} \\} from '@gw/contracts';$`, 'gm');

/** The .ts files below `dir`, as paths relative to it. */
function tsFiles(dir, suffix = '.ts') {
  return readdirSync(dir, { recursive: true }).filter((file) => file.endsWith(suffix));
}

/** The module specifiers a TypeScript or CommonJS file imports or requires. */
function specifiers(source) {
  return [...source.matchAll(/(?:from\s+|require\()["']([^"']+)["']/g)].map((m) => m[1]);
}

/** `file` (relative to libs/contracts/src/gen) and the generated files it imports, transitively. */
function generatedClosure(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const spec of specifiers(readFileSync(join(GENERATED, file), 'utf8'))) {
    if (spec.startsWith('.')) generatedClosure(`${join(dirname(file), spec)}.ts`, seen);
  }
  return seen;
}

/** Copies the package's sources and its generated files into `stage`; answers where each came from. */
function stageSources(stage) {
  const origins = new Map();
  for (const file of tsFiles(join(PROJECT, 'src')).filter((f) => !/\.(spec|test)\.ts$/.test(f))) {
    const path = relative(dirname(file), join('gen', FROM_CONTRACTS.generated));
    const generated = path.startsWith('.') ? path : `./${path}`;
    const source = readFileSync(join(PROJECT, 'src', file), 'utf8').replace(
      CONTRACTS_IMPORT,
      `$1 * as ${FROM_CONTRACTS.binding} from '${generated}';`,
    );
    const workspaceImport = specifiers(source).find((spec) => spec.startsWith('@gw/'));
    if (workspaceImport) throw new Error(`libs/quota-client/src/${file} imports ${workspaceImport}, which the package cannot carry`);
    mkdirSync(dirname(join(stage, file)), { recursive: true });
    writeFileSync(join(stage, file), source);
    origins.set(join(stage, file), join(PROJECT, 'src', file));
  }
  for (const file of generatedClosure(`${FROM_CONTRACTS.generated}.ts`)) {
    mkdirSync(dirname(join(stage, 'gen', file)), { recursive: true });
    copyFileSync(join(GENERATED, file), join(stage, 'gen', file));
    origins.set(join(stage, 'gen', file), join(GENERATED, file));
  }
  return origins;
}

/** Points each source map at the workspace file its code came from, not at the staged copy. */
function pointMapsAtOrigins(origins) {
  for (const file of tsFiles(OUT, '.js.map')) {
    const map = JSON.parse(readFileSync(join(OUT, file), 'utf8'));
    const mapDir = dirname(join(OUT, file));
    map.sources = map.sources.map((source) => relative(mapDir, origins.get(resolve(mapDir, source)) ?? resolve(mapDir, source)));
    writeFileSync(join(OUT, file), JSON.stringify(map));
  }
}

/** Fails unless the packages the compiled files require are exactly package.json's dependencies. */
function checkDependencies() {
  const required = new Set();
  for (const file of tsFiles(OUT, '.js')) {
    for (const spec of specifiers(readFileSync(join(OUT, file), 'utf8'))) {
      const name = spec.startsWith('.') ? undefined : packageOf(spec);
      if (name) required.add(name);
    }
  }
  const listed = Object.keys(JSON.parse(readFileSync(join(OUT, 'package.json'), 'utf8')).dependencies ?? {});
  const [need, have] = [[...required].sort().join(', '), [...listed].sort().join(', ')];
  if (need !== have)
    throw new Error(`dist/libs/quota-client requires ${need || 'no package'}, but its package.json lists ${have || 'none'}`);
}

mkdirSync(dirname(OUT), { recursive: true });
const stage = mkdtempSync(join(dirname(OUT), '.quota-client-'));
try {
  const origins = stageSources(join(stage, 'src'));
  writeFileSync(
    join(stage, 'tsconfig.json'),
    JSON.stringify({
      extends: join(PROJECT, 'tsconfig.lib.json'),
      compilerOptions: { rootDir: 'src', outDir: OUT },
      include: ['src/**/*.ts'],
    }),
  );
  rmSync(OUT, { recursive: true, force: true });
  execFileSync(process.execPath, [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', join(stage, 'tsconfig.json')], {
    stdio: 'inherit',
  });
  pointMapsAtOrigins(origins);
  for (const file of ['package.json', 'README.md']) copyFileSync(join(PROJECT, file), join(OUT, file));
  checkDependencies();
} finally {
  rmSync(stage, { recursive: true, force: true });
}
