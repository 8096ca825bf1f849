// Builds dist/ once before the tests, so end-to-end tests start the same bundles `npm start` runs.
const { execFileSync } = require('node:child_process');

module.exports = () => {
  execFileSync(process.execPath, ['tools/build.mjs', '--quiet'], { cwd: `${__dirname}/..`, stdio: 'inherit' });
};
