import nx from '@nx/eslint-plugin';

/**
 * Module boundaries, in two dimensions of project tags (the Nx rule also refuses any import of an
 * application project, relative or not):
 * - type: apps and tools use libs; libs use libs; test-only libs (type:test) are for test files,
 *   end-to-end projects and the bench, never for code that ships.
 * - scope: a project uses its own scope and the shared one; shared libs use only shared libs.
 */
const TYPE_RULES = (testOnly) => [
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib', ...testOnly] },
  { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', ...testOnly] },
  { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib', ...testOnly] },
  { sourceTag: 'type:test', onlyDependOnLibsWithTags: ['type:lib', 'type:test'] },
  { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:lib', 'type:test'] },
  { sourceTag: 'type:bench', onlyDependOnLibsWithTags: ['type:lib', 'type:test'] },
];
const SCOPE_RULES = ['edge', 'auth', 'quota', 'billing', 'provider', 'console', 'notifier', 'ops']
  .map((scope) => ({ sourceTag: `scope:${scope}`, onlyDependOnLibsWithTags: [`scope:${scope}`, 'scope:shared'] }))
  .concat({ sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] });

const boundaries = (testOnly) => [
  'error',
  { enforceBuildableLibDependency: false, allow: [], depConstraints: [...TYPE_RULES(testOnly), ...SCOPE_RULES] },
];
const TEST_FILES = ['**/*.spec.ts', '**/*.test.ts', '**/test/**/*.ts'];

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/dist/**', '**/node_modules/**', 'libs/*/src/gen/**', '.nx/**', '.data/**'] },
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries([]),
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  { files: TEST_FILES, rules: { '@nx/enforce-module-boundaries': boundaries(['type:test']) } },
  // The edge's domain declares the ports its clients implement (domain/ports.ts) and imports none of them.
  {
    files: ['apps/edge/src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../clients/*', '../routes/*', '../http/*', '../upstream/*'],
              message: 'the domain declares a port in domain/ports.ts instead',
            },
          ],
        },
      ],
    },
  },
];
