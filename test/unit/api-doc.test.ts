import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError } from '../../src/errors/errors.js';
import { writeError } from '../../src/http/error-response.js';
import { discoveryMetadata } from '../../src/http/routes/discovery.js';

/** docs/api/: an index with the conventions and errors, and a page per audience. */
const DIR = fileURLToPath(new URL('../../docs/api/', import.meta.url));
const read = (name: string) => readFileSync(`${DIR}${name}`, 'utf8');
const index = read('README.md');
const integrators = read('server-integrators.md');
const all = readdirSync(DIR)
  .filter((name) => name.endsWith('.md'))
  .map(read)
  .join('\n');

/** The routes src/http/routes declares with a literal path, as `method path` with `{param}`s. */
function declaredRoutes(): string[] {
  const ROUTES = fileURLToPath(new URL('../../src/http/routes/', import.meta.url));
  return readdirSync(ROUTES)
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) => [
      ...readFileSync(`${ROUTES}${name}`, 'utf8').matchAll(
        /route(?:<[^>]*>)?\(\s*'([a-z]+)',\s*'([^']+)'/g,
      ),
    ])
    .map(([, method, path]) => `${method!.toUpperCase()} ${path!.replace(/:(\w+)/g, '{$1}')}`);
}

describe('docs/api/', () => {
  it('has a page for each audience, linked from its index', () => {
    for (const page of ['server-integrators.md', 'agent-builders.md', 'operators.md']) {
      expect(index).toContain(`](${page})`);
    }
  });

  it("shows discovery's real answer at its default settings (no scopes), every grant listed", () => {
    const shown =
      /\$ curl -s localhost:8080\/\.well-known\/oauth-authorization-server\n(.*)\n/.exec(
        integrators,
      );
    expect(shown).not.toBeNull();
    const issuer = 'http://localhost:8080';
    expect(JSON.parse(shown![1]!)).toEqual(discoveryMetadata(issuer, issuer, {}));
  });

  it("error table's 413 row says what the OAuth endpoints' error member is", () => {
    const ctx = {
      status: 0,
      body: undefined as unknown,
      type: '',
      state: {},
      set: () => {},
      get: () => '',
    };
    const logger = { error: () => {}, warn: () => {} };
    // @ts-expect-error: the few members writeError touches for this error
    writeError(ctx, new PayloadTooLargeError(1), 'oauth', logger);
    const { error } = ctx.body as { error: string };
    const row = index.split('\n').find((line) => line.startsWith(`| ${ctx.status} `));
    expect(row).toContain('`payload_too_large`');
    expect(row).toContain(`\`"error": "${error}"\``);
  });

  it('names the path of every route declared with a literal one', () => {
    const routes = declaredRoutes();
    expect(routes.length).toBeGreaterThan(50);
    const missing = routes
      .map((route) => route.split(' ')[1]!.replace(/\/\*\w+$/, '/'))
      .filter((path) => !all.includes(path));
    expect([...new Set(missing)]).toEqual([]);
  });
});
