// Jest transform: TypeScript to CommonJS with esbuild (types are checked by `npm run typecheck`).
const { transformSync } = require('esbuild');

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, {
      loader: 'ts',
      format: 'cjs',
      target: 'node20',
      sourcemap: 'both',
      sourcefile: filename,
    });
    return { code, map };
  },
};
