import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { typeScriptFiles } from '../support/source-files.js';

const SRC = path.resolve('src');

/** The policy's own files: the one place allowed to compare roles, spaces, scopes and the rest. */
const POLICY = /^domain\/policy(\.ts|\/)/;

/**
 * What deciding access looks like in the source text: a role, a space, a scope, a credential's
 * status, a token's kind or client compared, a revocation looked up. One regex per subject.
 */
const DECISIONS: Readonly<Record<string, RegExp>> = {
  role: /[!=]==\s*'(admin|auditor)'|'(admin|auditor)'\s*[!=]==/,
  // Not against undefined, null, '' or LOG_TREE: whether a space was named, or which tree it is.
  space:
    /(?<!typeof\s[\w.?]*)\bspace_?[iI]d\s*[!=]==(?!\s*(undefined\b|null\b|''|LOG_TREE\b))|[!=]==\s*[\w.?]*\bspace_?[iI]d\b|\.spaces\??\.(includes|some|indexOf|find)\(|\.includes\(\s*[\w.]*space_?[iI]d\s*\)/,
  scope:
    /\bscopes?\??\.(includes|some|every|indexOf)\(|\.includes\(\s*[\w.]*\bscopes?\b|(?<!typeof\s[\w.?]*)\bscopes?\s*[!=]==\s*'/,
  status: /\bstatus\s*[!=]==\s*'(active|revoked)'/,
  kind: /\btoken_kind\s*[!=]==|[!=]==\s*[\w.?]*\btoken_kind\b|\bkinds\.includes\(/,
  client: /\bclient_?[iI]d\s*[!=]==\s*[\w.?]*\bclient_?[iI]d\b/,
  // A lookup handed to policy.tokenRevoked (`(jti) => ….isRevoked(jti)`) is the policy asking.
  // An HTTP method standing in for a permission (a route declares its policy instead).
  method: /\b(route|operation)\.method\s*[!=]==/,
  revocation: /(?<!=>\s*[\w.]*)\bisRevoked\(|\brevoked(Tokens|Clients)\.(has|get)\(/,
};

/**
 * Comparisons that match and decide no access, each with why. Keyed by file and the matched
 * line's text (trimmed), so an edit elsewhere in the file does not move them.
 */
const NOT_DECISIONS: ReadonlyArray<{ file: string; line: string; why: string }> = [
  {
    file: 'cli/login-token.ts',
    line: "(role !== 'admin' && role !== 'auditor')",
    why: 'validates the --role flag of the development CLI before a token is minted',
  },
  {
    file: 'http/authentication.ts',
    line: '(body.client_id !== undefined && body.client_id !== basic.clientId))',
    why: 'RFC 6749 §2.3: a client_id repeated in the body must name the Basic one; a malformed request, not access',
  },
  {
    file: 'commands/token/introspect.ts',
    line: "return claims.token_kind === 'public'",
    why: "shapes the answer (a public token's customer fields); the token was judged active above",
  },
  {
    file: 'commands/token/revoke-decider.ts',
    line: 'revokedAt: (await ports.revocations.isRevoked(claims.jti)) ? 0 : null,',
    why: 'loads the state decideRevokeToken judges (revoking a revoked token records nothing)',
  },
  {
    file: 'projections/revocation-lookup.ts',
    line: 'isRevoked(jti: string): boolean | Promise<boolean>;',
    why: "the revocation lookup's port, which policy.tokenRevoked asks",
  },
  {
    file: 'projections/revocation-lookup.ts',
    line: 'isRevoked(jti) {',
    why: "the revocation lookup's implementation",
  },
];

/** Every .ts file under src/, relative to it. */
const sourceFiles = (): string[] => typeScriptFiles(SRC).map((file) => path.relative(SRC, file));

/** Where src/ outside the policy decides access itself: `file:line subject: text`. */
function decisionsOutsideThePolicy(): string[] {
  return sourceFiles()
    .filter((file) => !POLICY.test(file))
    .flatMap((file) =>
      readFileSync(path.join(SRC, file), 'utf8')
        .split('\n')
        .flatMap((text, index) => {
          const line = text.trim();
          // Comments say why; they decide nothing.
          if (line.startsWith('//') || line.startsWith('*') || line.startsWith('/*')) return [];
          const subject = Object.keys(DECISIONS).find((key) => DECISIONS[key]!.test(line));
          if (!subject) return [];
          if (NOT_DECISIONS.some((known) => known.file === file && known.line === line)) return [];
          return [`src/${file}:${index + 1} ${subject}: ${line}`];
        }),
    );
}

describe('who may do what is decided in src/domain/policy alone', () => {
  it('finds no role, space, scope, status, kind, client, method or revocation compared outside it', () => {
    expect(decisionsOutsideThePolicy()).toEqual([]);
  });

  it('keeps no allow-list entry that no longer matches anything', () => {
    const stale = NOT_DECISIONS.filter((known) => {
      const file = path.join(SRC, known.file);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return true;
      }
      return !text.split('\n').some((line) => line.trim() === known.line);
    });
    expect(stale).toEqual([]);
  });

  it('catches each kind of comparison it is meant to', () => {
    const caught = (line: string) =>
      Object.keys(DECISIONS).find((key) => DECISIONS[key]!.test(line));
    expect(caught("if (user.role === 'admin') {")).toBe('role');
    expect(caught('return state && state.spaceId === command.spaceId ? state : undefined;')).toBe(
      'space',
    );
    expect(caught('if (!user.spaces.includes(spaceId)) throw error;')).toBe('space');
    expect(caught("if (!claims.scopes.includes('cart:write')) return;")).toBe('scope');
    expect(caught("if (!owner || owner.status !== 'active') return { active: false };")).toBe(
      'status',
    );
    expect(caught("if (claims.token_kind === 'public') {")).toBe('kind');
    expect(caught('if (credential.clientId !== privateToken.client_id) {')).toBe('client');
    expect(caught('if (await ctx.revocations.isRevoked(claims.jti)) return;')).toBe('revocation');
    expect(caught("const changes = route.method !== 'get';")).toBe('method');
    // Not decisions: a type test, a filter that is absent.
    expect(caught("if (typeof line.event.space_id === 'string') {")).toBeUndefined();
    expect(caught('.$if(options.spaceId !== undefined, (query) => query)')).toBeUndefined();
  });
});
