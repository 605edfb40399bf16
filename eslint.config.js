// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * Which folder of src/ may import which: the layer table of docs/architecture.md, enforced here
 * (test/unit/layers.test.ts keeps the two equal and checks the table has no cycle). A folder
 * always may import itself; anything not listed is refused by `npm run lint`. `audit-log`,
 * `verifier`, `pkcs11-signer`, `embedded-postgres`, `outbound`, `settings`, `rate-limit`,
 * `event-log` and `oauth-authorize` are the packages of those names in packages/, imported as `#<name>/…` (package.json
 * `imports`).
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const LAYERS = {
  errors: [],
  config: ['settings'],
  net: [],
  domain: ['verifier', 'event-log', 'oauth-authorize'],
  db: ['embedded-postgres', 'event-log', 'audit-log', 'config'],
  'audit-trail': ['audit-log', 'event-log', 'db', 'domain', 'config'],
  limits: ['rate-limit', 'errors'],
  crypto: [
    'verifier',
    'audit-log',
    'pkcs11-signer',
    'rate-limit',
    'domain',
    'db',
    'config',
    'errors',
  ],
  projections: ['audit-trail', 'event-log', 'db', 'domain', 'errors'],
  observability: ['projections', 'event-log', 'db', 'domain'],
  delivery: ['outbound', 'audit-trail', 'event-log', 'crypto', 'db', 'domain', 'errors'],
  commands: [
    'verifier',
    'oauth-authorize',
    'outbound',
    'delivery',
    'observability',
    'domain',
    'event-log',
    'projections',
    'crypto',
    'limits',
    'db',
    'errors',
  ],
  http: [
    'verifier',
    'oauth-authorize',
    'outbound',
    'delivery',
    'commands',
    'projections',
    'audit-trail',
    'crypto',
    'limits',
    'observability',
    'event-log',
    'domain',
    'db',
    'errors',
  ],
  cli: [
    'audit-log',
    'settings',
    'delivery',
    'http',
    'commands',
    'projections',
    'audit-trail',
    'observability',
    'event-log',
    'crypto',
    'limits',
    'rate-limit',
    'domain',
    'db',
    'config',
    'errors',
    'net',
  ],
  testing: ['cli', 'crypto', 'config', 'net'],
  verify: ['audit-log', 'verifier'],
};

/**
 * The folders of tools/ (the drills, the fleet, chaos and soak: programs that run the service,
 * not part of it) and what each may use besides itself: folders of src/ by name, another folder
 * of tools/ as `tools/<folder>`. The same table in docs/architecture.md, held equal by
 * test/unit/layers.test.ts. Tools may use src/; src/ may never use tools/ (every folder's rule
 * refuses it), so the service builds and runs without them.
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const TOOL_LAYERS = {
  'tools/reliability': ['audit-trail', 'projections', 'crypto', 'domain', 'db', 'net'],
  'tools/fleet': ['audit-trail', 'db', 'config', 'net'],
  'tools/cli': ['tools/fleet', 'tools/reliability', 'tools/consent-app', 'cli', 'db'],
  'tools/consent-app': [],
};

/**
 * The rooms of a folder (sub-folders with a job each): the audit trail's by lifecycle, as
 * docs/architecture.md tells them. test/unit/layers.test.ts keeps this list equal to the folders.
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const ROOMS = { 'audit-trail': ['seal', 'prove', 'archive'] };

/**
 * Rooms held to a narrower rule than their folder's row: what each may use besides itself, as
 * folders of src/ (within its folder's row), or `<folder>` for the folder's own top-level files,
 * or `<folder>/<room>` for a sibling room. Every other folder and every sibling room is refused;
 * a room that may not use `db` may not import the database drivers (kysely, pg) either. None
 * now: the offline checks, which had one, are the audit-log package's (packageRule).
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const SUB_LAYERS = {};

/**
 * The packages (libraries in packages/, imported by the service as `#<name>/…`) and the modules
 * each may not import: each is used alone by a reviewer, a resource server or another service,
 * so nothing of the service (src/), of its tools, of another package, of a database or of a web
 * server. The verifier checks JWTs with jose, and the PKCS#11 signer names its JWKs by jose's
 * type; the audit log, the outbound toolkit, the settings library and the Postgres launcher
 * need no JOSE. The rate-limit package shares budgets over Postgres LISTEN/NOTIFY, so pg's types.
 * The event log is a Postgres store: the drivers are its own.
 * @type {Readonly<Record<string, { modules: readonly string[] }>>}
 */
export const PACKAGE_REFUSES = {
  'audit-log': { modules: ['kysely', 'pg', 'koa', 'pino', 'jose'] },
  verifier: { modules: ['kysely', 'pg', 'koa', 'pino'] },
  'pkcs11-signer': { modules: ['kysely', 'pg', 'koa', 'pino'] },
  'embedded-postgres': { modules: ['kysely', 'pg', 'koa', 'pino', 'jose'] },
  outbound: { modules: ['kysely', 'pg', 'koa', 'pino', 'jose'] },
  settings: { modules: ['kysely', 'pg', 'koa', 'pino', 'jose'] },
  'rate-limit': { modules: ['kysely', 'koa', 'pino', 'jose'] },
  'event-log': { modules: ['koa', 'pino', 'jose'] },
  'oauth-authorize': { modules: ['kysely', 'pg', 'koa', 'pino', 'jose'] },
};

// The database drivers: only a layer that may use src/db may import them.
const DB_MODULES = ['kysely', 'pg'];

// Modules with I/O the pure domain may not reach for: it decides, the commands do the I/O.
const IO_MODULES = ['pg', 'kysely', 'koa', 'pino', 'node:fs', 'node:fs/promises', 'node:net'];

// What every folder of src/ refuses: the tools run the service, the service never runs them.
// (A folder whose row lacks a package is refused that package as well: see layerRule.)
const NO_TOOLS = {
  regex: '^(\\.\\./)+tools/',
  message: 'src/ may not import tools/ (layer table: docs/architecture.md).',
};

/**
 * A package refused to a folder whose row does not list it.
 * @param {string} folder
 * @param {string} name
 */
const NO_PACKAGE = (folder, name) => ({
  regex: `^(#${name}/|(\\.\\./)+packages/${name}/)`,
  message: `src/${folder} may not import the ${name} package (layer table: docs/architecture.md).`,
});

/**
 * no-restricted-imports for a package's files `depth` folders below its root: no import that
 * leaves the package (as many `../` as reach past its root), none of the service's `#` paths, no
 * database driver, no web server (PACKAGE_REFUSES).
 * @param {string} name
 * @param {number} depth
 * @returns {import('eslint').Linter.Config}
 */
const packageRule = (name, depth) => ({
  files: [`packages/${name}/${'*/'.repeat(depth)}*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: (PACKAGE_REFUSES[name]?.modules ?? []).map((module) => ({
          name: module,
          message: `packages/${name} may not import ${module}: it is a library used alone.`,
        })),
        patterns: [
          {
            regex: `^(#|(\\.\\./){${depth + 1},})`,
            message: `packages/${name} may import nothing outside itself (src/, tools/, test/).`,
          },
        ],
      },
    ],
  },
});

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
          patterns: [
            ...refused.map((other) => ({
              regex: `^(\\.\\./)+${other}/`,
              message: `src/${folder} may not import src/${other} (layer table: docs/architecture.md).`,
            })),
            ...Object.keys(PACKAGE_REFUSES)
              .filter((name) => !allowed.has(name))
              .map((name) => NO_PACKAGE(folder, name)),
            NO_TOOLS,
          ],
        },
      ],
    },
  };
}

/**
 * no-restricted-imports for one room (`<folder>/<room>`): it replaces its folder's rule for the
 * room's files, so it refuses everything the folder's row refuses and more.
 * @param {string} room
 * @returns {import('eslint').Linter.Config}
 */
function roomRule(room) {
  const [folder, name] = /** @type {[string, string]} */ (room.split('/'));
  const uses = SUB_LAYERS[room] ?? [];
  const refused = Object.keys(LAYERS).filter((other) => other !== folder && !uses.includes(other));
  const siblings = (ROOMS[folder] ?? []).filter(
    (other) => other !== name && !uses.includes(`${folder}/${other}`),
  );
  const why = `src/${room} may not import`;
  return {
    files: [`src/${room}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: uses.includes('db')
            ? []
            : DB_MODULES.map((name) => ({ name, message: `${why} ${name} (layer table).` })),
          patterns: [
            ...refused.map((other) => ({
              regex: `^(\\.\\./)+${other}/`,
              message: `${why} src/${other} (layer table: docs/architecture.md).`,
            })),
            ...siblings.map((other) => ({
              regex: `^\\.\\./${other}/`,
              message: `${why} src/${folder}/${other} (layer table: docs/architecture.md).`,
            })),
            NO_TOOLS,
          ],
        },
      ],
    },
  };
}

/**
 * no-restricted-imports for one folder of tools/: every folder of src/ and every other folder of
 * tools/ its row does not list.
 * @param {string} tool `tools/<folder>`
 * @returns {import('eslint').Linter.Config}
 */
function toolRule(tool) {
  const uses = TOOL_LAYERS[tool] ?? [];
  const refusedSrc = Object.keys(LAYERS).filter((folder) => !uses.includes(folder));
  const refusedTools = Object.keys(TOOL_LAYERS).filter(
    (other) => other !== tool && !uses.includes(other),
  );
  return {
    files: [`${tool}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...refusedSrc.map((folder) => ({
              regex: `^(\\.\\./)+src/${folder}/`,
              message: `${tool} may not import src/${folder} (layer table: docs/architecture.md).`,
            })),
            ...refusedTools.map((other) => ({
              regex: `^\\.\\./${other.slice('tools/'.length)}/`,
              message: `${tool} may not import ${other} (layer table: docs/architecture.md).`,
            })),
          ],
        },
      ],
    },
  };
}

/**
 * Issue 52's rule for src/: a ceiling on its TypeScript (as `find src -name '*.ts' | xargs cat |
 * wc -l` counts it) and 250 lines in any one file, past which a file does two jobs. The per-file
 * bound is max-lines below (in tools/, packages/ and bench/ too); test/unit/line-budget.test.ts
 * checks both. The ceiling rises only by a feature's own need, said here: 24,000 after issue 52;
 * 26,000 for issue 64's authorization endpoint (a new flow: requests, consent, codes; its protocol
 * is packages/oauth-authorize, outside it); 26,500 for its refresh tokens and consent records
 * (rotation, reuse, withdrawal, the list), a grant and a record of their own; 27,200 for issue 65's
 * Token Status List (each process's lists, their entries' projection, a list judged and signed);
 * 28,000 for its Shared Signals (signals declared by events, SETs made, pushed and polled, the
 * metadata, the deliverer's idle writes and the list builds' turns after their review); 29,000
 * for SSF 1.0 §8's stream management by receivers (their token's audience and gate, nine routes,
 * the configuration's shapes, ownership, verification as an event); 29,500 for a past anyone can
 * prove (each status list version published and each SET acknowledged as an event, `?time=`);
 * 29,750 for the log tree's public C2SP tiles (issue 67) and RISC credential-compromise; 30,000
 * for token receipts (C2SP tlog-proof) and the published tlog-policy; 30,250 for receipts of
 * revocations, consents and any event to an auditor, and archiving only under a signed head;
 * 30,300 for a leader ending a deposed projector's batch that holds its locks past every timeout.
 */
export const LINE_BUDGET = Object.freeze({ total: 30_300, perFile: 250 });

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
  ...Object.keys(SUB_LAYERS).map(roomRule),
  ...Object.keys(TOOL_LAYERS).map(toolRule),
  ...Object.keys(PACKAGE_REFUSES).flatMap((name) =>
    [0, 1, 2, 3].map((depth) => packageRule(name, depth)),
  ),
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
    // CommonJS loaded by require (a stand-in for the pkcs11js binding in the HSM tests).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: [
      'src/cli/**',
      'tools/cli/**',
      'packages/audit-log/src/witness/**',
      'packages/audit-log/src/cli/**',
      'bench/**',
      'test/**',
    ],
    rules: { 'no-console': 'off' },
  },
  {
    // How a stream is written is its name's, not each caller's: only the registry makes refs.
    files: ['src/**/*.ts', 'tools/**/*.ts'],
    ignores: ['src/domain/streams.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'ImportSpecifier[imported.name=/^(newStream|keyedStream)$/], ImportDeclaration[source.value=/stream-ref\\.js$/] > ImportNamespaceSpecifier',
          message: 'Stream refs come from src/domain/streams.ts (the registry), nowhere else.',
        },
      ],
    },
  },
  {
    // One job per file: past LINE_BUDGET.perFile lines a file is doing two (as `wc -l` counts).
    files: ['src/**/*.ts', 'tools/**/*.ts', 'packages/*/src/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'max-lines': [
        'error',
        { max: LINE_BUDGET.perFile, skipBlankLines: false, skipComments: false },
      ],
    },
  },
);
