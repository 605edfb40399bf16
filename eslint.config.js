// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * Which folder of src/ may import which: the layer table of docs/architecture.md, enforced here
 * (test/unit/layers.test.ts keeps the two equal and checks the table has no cycle). A folder
 * always may import itself; anything not listed is refused by `npm run lint`.
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const LAYERS = {
  errors: [],
  config: [],
  net: [],
  domain: [],
  db: ['config'],
  'event-store': ['db'],
  'audit-trail': ['transparency', 'event-store', 'db', 'domain', 'config'],
  limits: ['domain', 'errors'],
  crypto: ['domain', 'db', 'config', 'errors'],
  projections: ['audit-trail', 'event-store', 'db', 'domain', 'errors'],
  observability: ['projections', 'event-store', 'db', 'domain'],
  delivery: ['audit-trail', 'event-store', 'crypto', 'db', 'domain', 'errors'],
  commands: ['domain', 'event-store', 'projections', 'crypto', 'limits', 'db', 'errors'],
  http: [
    'delivery',
    'commands',
    'projections',
    'audit-trail',
    'crypto',
    'limits',
    'observability',
    'event-store',
    'domain',
    'db',
    'errors',
  ],
  fleet: ['audit-trail', 'db', 'config', 'net'],
  reliability: ['audit-trail', 'projections', 'observability', 'crypto', 'domain', 'db', 'net'],
  cli: [
    'delivery',
    'fleet',
    'transparency',
    'http',
    'commands',
    'reliability',
    'projections',
    'audit-trail',
    'observability',
    'event-store',
    'crypto',
    'limits',
    'domain',
    'db',
    'config',
    'errors',
    'net',
  ],
  testing: ['cli', 'crypto', 'config', 'net'],
  verify: ['crypto', 'transparency', 'domain', 'errors'],
  testcontainers: [],
  transparency: [],
};

// Modules with I/O the pure domain may not reach for: it decides, the commands do the I/O.
const IO_MODULES = ['pg', 'kysely', 'koa', 'pino', 'node:fs', 'node:fs/promises', 'node:net'];

/**
 * no-restricted-imports for one folder: every other folder its row does not list.
 * @param {string} folder
 * @returns {import('eslint').Linter.Config}
 */
function layerRule(folder) {
  const allowed = new Set([folder, ...(LAYERS[folder] ?? [])]);
  const refused = Object.keys(LAYERS).filter((other) => !allowed.has(other));
  return {
    files: [`src/${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...(folder === 'domain' ? { paths: IO_MODULES } : {}),
          patterns: refused.map((other) => ({
            regex: `^(\\.\\./)+${other}/`,
            message: `src/${folder} may not import src/${other} (layer table: docs/architecture.md).`,
          })),
        },
      ],
    },
  };
}

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', 'dist/**', 'packages/*/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  ...Object.keys(LAYERS).map(layerRule),
  {
    // The dashboard's script runs in the browser, beside uPlot's global.
    files: ['src/http/dashboard/**'],
    languageOptions: { globals: { ...globals.browser, uPlot: 'readonly' } },
  },
  {
    // Plain JavaScript run by Node as it is (the stand-in identity provider, the consumer project).
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['src/cli/**', 'bench/**', 'test/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // One job per file: past 250 lines a file is doing two (counted as `wc -l` counts them).
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 250, skipBlankLines: false, skipComments: false }] },
  },
);
