// The part of the workspace's package-lock.json (lockfile v3) that a set of dependencies needs: the
// packages they reach through dependencies, optional and required peer dependencies, at the same
// paths and versions, so `npm ci` of one app installs what the tests ran with and nothing more.

/** Where `name` resolves from the package at `fromPath`, as Node looks it up: nearest node_modules first. */
function resolvePath(packages, fromPath, name) {
  let base = fromPath;
  for (;;) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut === -1 ? '' : base.slice(0, cut);
  }
}

function runtimeDependencyNames(entry) {
  const optionalPeers = entry.peerDependenciesMeta ?? {};
  const peers = Object.keys(entry.peerDependencies ?? {}).filter((name) => !optionalPeers[name]?.optional);
  return [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...peers];
}

/** A lockfile for `manifest` ({name, version, dependencies}) cut from the workspace's `lock`. */
export function prunedLock(lock, manifest) {
  const kept = {};
  const visit = (fromPath, name, optional) => {
    const path = resolvePath(lock.packages, fromPath, name);
    if (!path) {
      if (optional) return;
      throw new Error(`package-lock.json has no ${name} for ${fromPath || 'the root'}`);
    }
    if (kept[path]) return;
    const entry = { ...lock.packages[path] };
    delete entry.dev;
    delete entry.devOptional;
    kept[path] = entry;
    const optionalNames = new Set(Object.keys(entry.optionalDependencies ?? {}));
    for (const dep of runtimeDependencyNames(entry)) visit(path, dep, optionalNames.has(dep));
  };
  for (const name of Object.keys(manifest.dependencies)) visit('', name, false);
  const sorted = Object.fromEntries(
    Object.keys(kept)
      .sort()
      .map((path) => [path, kept[path]]),
  );
  return {
    name: manifest.name,
    version: manifest.version,
    lockfileVersion: 3,
    requires: true,
    packages: { '': { name: manifest.name, version: manifest.version, dependencies: manifest.dependencies }, ...sorted },
  };
}
