#!/usr/bin/env node
// The operator CLI as a command (`npm run -s ctl -- NOUN VERB`, `npx gateway-ctl NOUN VERB`): runs
// the ctl bundle, building it first only when it is missing or older than its sources (`nx run
// ctl:build` makes the same bundle). The build renames finished files into place, so calls made at
// the same time never read half a bundle, whichever of them builds.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'dist', 'apps', 'ctl', 'main.js');
/** What the bundle is made of: ctl's sources, every lib, and the settings of the build. */
const SOURCES = ['apps/ctl/src', 'libs', 'tsconfig.base.json', 'package-lock.json', 'tools/bundle-project.mjs', 'tools/pruned-lock.mjs'];

/** The newest modification time under `path` (node_modules left out), ms. */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path)
    .filter((name) => name !== 'node_modules')
    .reduce((latest, name) => Math.max(latest, newest(join(path, name))), 0);
}

const built = existsSync(bundle) ? statSync(bundle).mtimeMs : -1;
if (built < Math.max(...SOURCES.map((source) => newest(join(root, source))))) {
  const { bundleProject } = await import('./bundle-project.mjs');
  await bundleProject('apps/ctl');
}
createRequire(import.meta.url)(bundle);
