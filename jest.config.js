/**
 * The Jest settings of every project: each project's test (or e2e) target runs `jest <its root>/`.
 * Unit specs sit beside the code, integration tests under test/, end-to-end tests in the *-e2e
 * projects, which depend on the builds of the apps they start (nx.json, e2e).
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools'],
  testMatch: ['**/*.spec.ts', '**/*.test.ts'],
  transform: {
    '^.+\\.ts$': '<rootDir>/tools/jest-esbuild-transform.js',
    // The one ES-module-only package a test loads (through @apidevtools/swagger-parser): made CommonJS too.
    '/node_modules/@apidevtools/json-schema-ref-parser/.+\\.js$': '<rootDir>/tools/jest-esbuild-transform.js',
  },
  transformIgnorePatterns: ['/node_modules/(?!@apidevtools/json-schema-ref-parser/)'],
  moduleNameMapper: { '^@gw/(.*)$': '<rootDir>/libs/$1/src/index.ts' },
  testTimeout: 30000,
};
