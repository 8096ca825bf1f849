// What each app's image adds to the distroless Node.js base: its bundle and the node_modules that
// its package-lock.json (written beside the bundle by its build) installs, measured on this
// workspace's node_modules, which hold the same versions. Run after `npm run build`:
//   node tools/image-size.mjs
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

function bytesUnder(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
}

/** Bytes of the packages a lockfile installs; nested node_modules are counted with their own entry. */
function installedBytes(lock) {
  return Object.keys(lock.packages)
    .filter((path) => path)
    .reduce((sum, path) => {
      const dir = join(ROOT, path);
      const own = readdirSync(dir).filter((name) => name !== 'node_modules');
      return sum + own.reduce((s, name) => s + bytesUnder(join(dir, name)), 0);
    }, 0);
}

/** The workspace's lockfile without its development packages: what every image installed before. */
function productionLockOfWorkspace() {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  return { packages: Object.fromEntries(Object.entries(lock.packages).filter(([path, entry]) => path && !entry.dev)) };
}

const mb = (bytes) => (bytes / 1e6).toFixed(1);

console.log('| app | bundle MB | node_modules MB | packages | added to the base MB |');
console.log('|---|---:|---:|---:|---:|');
for (const app of readdirSync(join(ROOT, 'dist/apps')).sort()) {
  const dir = join(ROOT, 'dist/apps', app);
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  const bundle = statSync(join(dir, 'main.js')).size + statSync(join(dir, 'main.js.map')).size;
  const modules = installedBytes(lock);
  console.log(`| ${app} | ${mb(bundle)} | ${mb(modules)} | ${Object.keys(lock.packages).length - 1} | ${mb(bundle + modules)} |`);
}
console.log(
  `\nEvery production dependency of the workspace (what each image installed before): ${mb(installedBytes(productionLockOfWorkspace()))} MB.`,
);
