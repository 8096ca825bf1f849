// Bundles every app's main.ts (and the launcher) into dist/ with esbuild; node_modules stay external.
import { build } from 'esbuild';
import { readdirSync, existsSync } from 'node:fs';

const entries = readdirSync('apps')
  .filter((app) => existsSync(`apps/${app}/src/main.ts`))
  .map((app) => ({ in: `apps/${app}/src/main.ts`, out: `apps/${app}/main` }));
entries.push(
  { in: 'tools/launcher/src/main.ts', out: 'tools/launcher/main' },
  { in: 'bench/src/main.ts', out: 'bench/main' },
  { in: 'bench/src/floor-proxy.ts', out: 'bench/floor-proxy' },
);

await build({
  entryPoints: entries,
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  sourcemap: true,
  logLevel: process.argv.includes('--quiet') ? 'error' : 'warning',
  tsconfig: 'tsconfig.base.json',
});
