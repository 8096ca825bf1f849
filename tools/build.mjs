// Bundles every app's main.ts (and the launcher) into dist/ with esbuild; node_modules stay external.
import { build } from 'esbuild';
import { readdirSync, existsSync } from 'node:fs';
import { BUNDLE_OPTIONS } from './bundle-options.mjs';

const entries = readdirSync('apps')
  .filter((app) => existsSync(`apps/${app}/src/main.ts`))
  .map((app) => ({ in: `apps/${app}/src/main.ts`, out: `apps/${app}/main` }));
entries.push(
  { in: 'tools/launcher/src/main.ts', out: 'tools/launcher/main' },
  { in: 'bench/src/main.ts', out: 'bench/main' },
  { in: 'bench/src/floor-proxy.ts', out: 'bench/floor-proxy' },
);

await build({
  ...BUNDLE_OPTIONS,
  entryPoints: entries,
  outdir: 'dist',
  logLevel: process.argv.includes('--quiet') ? 'error' : 'warning',
});
