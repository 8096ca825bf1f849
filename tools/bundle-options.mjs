// How every bundle of dist/ is made (tools/build.mjs for all of them, tools/ctl.mjs for ctl alone):
// esbuild, for Node, CommonJS, node_modules left external, with source maps.
export const BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  sourcemap: true,
  tsconfig: 'tsconfig.base.json',
};
