// Jest transform: TypeScript to CommonJS with esbuild (types are checked by the typecheck targets).
// import() becomes require(): Jest's module system serves no dynamic imports without a Node flag.
const { transformSync } = require('esbuild');

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, {
      loader: 'ts',
      format: 'cjs',
      target: 'node22',
      supported: { 'dynamic-import': false },
      sourcemap: 'both',
      sourcefile: filename,
    });
    return { code, map };
  },
};
