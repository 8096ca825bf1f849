/**
 * The Jest settings of every project: each project's targets run `jest <its root>/`, `test` on the
 * *.spec.ts files (unit specs beside the code: no database, Redis or process), `integration` on the
 * *.test.ts files (under test/, and the Redis stores' tests beside each store), e2e on the *-e2e
 * projects, which depend on the builds of the apps they start (nx.json).
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
