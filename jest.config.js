/** One Jest run over every project: unit specs beside the code, integration and e2e tests under test/. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools'],
  testMatch: ['**/*.spec.ts', '**/*.test.ts'],
  transform: { '^.+\\.ts$': '<rootDir>/tools/jest-esbuild-transform.js' },
  moduleNameMapper: { '^@gw/(.*)$': '<rootDir>/libs/$1/src/index.ts' },
  globalSetup: '<rootDir>/tools/jest-global-setup.js',
  testTimeout: 30000,
};
