import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError } from '../../src/errors/errors.js';
import { writeError } from '../../src/http/error-response.js';
import { discoveryMetadata } from '../../src/http/routes/discovery.js';

const doc = readFileSync(fileURLToPath(new URL('../../docs/api.md', import.meta.url)), 'utf8');

describe('docs/api.md', () => {
  it("shows discovery's real answer at its default settings (no scopes), every grant listed", () => {
    const shown =
      /\$ curl -s localhost:8080\/\.well-known\/oauth-authorization-server\n(.*)\n/.exec(doc);
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
    const row = doc.split('\n').find((line) => line.startsWith(`| ${ctx.status} `));
    expect(row).toContain('`payload_too_large`');
    expect(row).toContain(`\`"error": "${error}"\``);
  });
});
