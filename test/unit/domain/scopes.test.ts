import { describe, expect, it } from 'vitest';
import { tokenClaims } from '../../../src/domain/token/claims.js';
import {
  allowedScopes,
  credentialScopes,
  missingScopes,
  privateTokenScopes,
  publicTokenScopes,
  tokenScopesStillAllowed,
} from '../../../src/domain/policy.js';
import { decideChangeScopes } from '../../../src/domain/credential/decide.js';
import { evolveCredential } from '../../../src/domain/credential/evolve.js';
import {
  decideIssuePrivateToken,
  decideIssuePublicToken,
} from '../../../src/domain/token/decide.js';
import { malformedScope, scopeText, scopeWords } from '../../../packages/verifier/src/scope.js';
import type { ScopeCatalog } from '../../../src/domain/scope-catalog.js';
import { credentialCreated, given, metadata, sequentialIds } from '../../support/given.js';

const AUD = 'storefront.test';
const catalog: ScopeCatalog = {
  [AUD]: {
    'products:read': { description: 'read products', public: true, default: true },
    'cart:write': { description: 'change carts', public: true, default: true },
    'checkout:write': { description: 'check out', public: true, default: false },
    'orders:read': { description: 'every order', public: false, default: false },
  },
  'admin.test': { 'admin:all': { description: 'everything', public: false, default: false } },
};

describe('scope words (RFC 6749 §3.3)', () => {
  it('reads a space-delimited value once each, and writes a set sorted', () => {
    expect(scopeWords('cart:write  products:read cart:write')).toEqual([
      'cart:write',
      'products:read',
    ]);
    expect(scopeWords(undefined)).toEqual([]);
    expect(scopeText(['b', 'a'])).toBe('a b');
  });

  it('refuses a word with a quote, a backslash, a control character or over 128 characters', () => {
    expect(malformedScope(['ok', 'a"b'])).toBe('a"b');
    expect(malformedScope(['a\\b'])).toBe('a\\b');
    expect(malformedScope(['a\u0001'])).toBe('a\u0001');
    expect(malformedScope(['x'.repeat(129)])).toBe('x'.repeat(129));
    expect(malformedScope(['cart:write', 'x'.repeat(128)])).toBeUndefined();
  });
});

describe('policy: scopes', () => {
  it('all-of: what is held lacks of what is required', () => {
    expect(missingScopes(['a', 'b'], ['a', 'c', 'b'])).toEqual(['c']);
    expect(missingScopes([], [])).toEqual([]);
  });

  it('a credential is given catalog scopes only; none named: every audience’s defaults', () => {
    expect(credentialScopes(catalog, undefined)).toEqual({
      ok: true,
      scopes: ['cart:write', 'products:read'],
    });
    expect(credentialScopes(catalog, ['orders:read', 'admin:all'])).toEqual({
      ok: true,
      scopes: ['orders:read', 'admin:all'],
    });
    expect(credentialScopes(catalog, ['orders:write'])).toMatchObject({
      ok: false,
      scope: 'orders:write',
      reason: 'unknown',
    });
  });

  it('a credential recorded before scopes allows the defaults; one with scopes, its own', () => {
    expect(allowedScopes(catalog, { scopes: null })).toEqual(['cart:write', 'products:read']);
    expect(allowedScopes(catalog, { scopes: ['orders:read'] })).toEqual(['orders:read']);
  });

  it('a private token: within its audience’s catalog and the credential; none asked: allowed defaults', () => {
    const allowed = ['products:read', 'orders:read', 'admin:all'];
    expect(privateTokenScopes(catalog, AUD, allowed, undefined)).toEqual({
      ok: true,
      scopes: ['products:read'],
    });
    expect(privateTokenScopes(catalog, AUD, allowed, ['orders:read'])).toEqual({
      ok: true,
      scopes: ['orders:read'],
    });
    // Another audience's scope, though the credential holds it.
    expect(privateTokenScopes(catalog, AUD, allowed, ['admin:all'])).toMatchObject({
      ok: false,
      reason: 'unknown',
    });
    expect(privateTokenScopes(catalog, AUD, allowed, ['cart:write'])).toMatchObject({
      ok: false,
      scope: 'cart:write',
      reason: 'not_allowed',
    });
    expect(privateTokenScopes({}, AUD, [], [])).toEqual({ ok: true, scopes: [] });
    expect(privateTokenScopes({}, AUD, [], ['x'])).toMatchObject({ ok: false, reason: 'unknown' });
  });

  it('a public token: never more than the token paying for it, public scopes only', () => {
    const paying = {
      scopes: ['products:read', 'orders:read', 'cart:write'],
      allowed: ['products:read', 'orders:read', 'cart:write', 'checkout:write'],
    };
    expect(publicTokenScopes(catalog, AUD, paying, undefined)).toEqual({
      ok: true,
      scopes: ['products:read', 'cart:write'],
    });
    expect(publicTokenScopes(catalog, AUD, paying, ['orders:read'])).toMatchObject({
      ok: false,
      reason: 'not_public',
    });
    expect(publicTokenScopes(catalog, AUD, paying, ['checkout:write'])).toMatchObject({
      ok: false,
      reason: 'not_held',
    });
    // The credential was narrowed since the paying token was issued.
    const narrowed = { ...paying, allowed: ['products:read'] };
    expect(publicTokenScopes(catalog, AUD, narrowed, ['cart:write'])).toMatchObject({
      ok: false,
      reason: 'not_allowed',
    });
    expect(publicTokenScopes(catalog, AUD, narrowed, undefined)).toEqual({
      ok: true,
      scopes: ['products:read'],
    });
  });

  it('a token stands only while its credential still allows every scope it carries', () => {
    const token = (scopes: string[]) => ({ scopes, audience: 'a.test' });
    expect(tokenScopesStillAllowed(token(['a']), ['a', 'b'], null)).toBe(true);
    expect(tokenScopesStillAllowed(token(['a', 'b']), ['a'], null)).toBe(false);
    expect(tokenScopesStillAllowed(token([]), [], null)).toBe(true);
  });

  it("and while the catalog still lists every scope it carries for the token's audience", () => {
    // Issue 51, item 12: a restart with a narrower catalog left the credential holding the scope.
    const held = { scopes: ['products:read', 'cart:write'], audience: AUD };
    const allowed = ['products:read', 'cart:write'];
    expect(tokenScopesStillAllowed(held, allowed, catalog)).toBe(true);
    const { 'cart:write': _removed, ...rest } = catalog[AUD]!;
    const narrower: ScopeCatalog = { ...catalog, [AUD]: rest };
    expect(tokenScopesStillAllowed(held, allowed, narrower)).toBe(false);
    // Listed for another audience is not listed for this one.
    expect(tokenScopesStillAllowed({ ...held, audience: 'admin.test' }, allowed, catalog)).toBe(
      false,
    );
    // The catalog unknown (the kit): the credential alone decides.
    expect(tokenScopesStillAllowed(held, allowed, null)).toBe(true);
  });
});

describe('credential: scopes changed', () => {
  const nextId = sequentialIds();
  const created = credentialCreated(nextId(), {
    catalog,
    scopes: ['products:read', 'cart:write'],
  });
  const state = given(evolveCredential, undefined, [created]);
  const change = (scopes: string[]) => ({
    spaceId: 'space-a',
    clientId: 'ci_1',
    actor: 'user:alice',
    metadata,
    eventId: nextId(),
    scopes,
    catalog,
  });

  it('given a credential created with scopes, then its state holds them', () => {
    expect(created.data.scopes).toEqual(['cart:write', 'products:read']);
    expect(state.scopes).toEqual(['cart:write', 'products:read']);
  });

  it('when narrowed, then the event names what was removed and when', () => {
    const decision = decideChangeScopes(change(['products:read']), state);
    expect(decision.ok && decision.events[0]!.data).toEqual({
      client_id: 'ci_1',
      scopes: ['products:read'],
      removed: ['cart:write'],
      changed_by: 'user:alice',
    });
    const after = given(evolveCredential, state, decision.ok ? decision.events : []);
    expect(after.scopes).toEqual(['products:read']);
    expect(after.scopesNarrowedAt).not.toBeNull();
  });

  it('when widened, then nothing is removed and no narrowing is recorded', () => {
    const decision = decideChangeScopes(
      change(['products:read', 'cart:write', 'orders:read']),
      state,
    );
    expect(decision.ok && decision.events[0]!.data.removed).toEqual([]);
    const after = given(evolveCredential, state, decision.ok ? decision.events : []);
    expect(after.scopesNarrowedAt).toBeNull();
  });

  it('when set to what it holds, then no event; to an unknown scope, invalid_scope naming it', () => {
    expect(decideChangeScopes(change(['cart:write', 'products:read']), state)).toEqual({
      ok: true,
      events: [],
      facts: undefined,
    });
    expect(decideChangeScopes(change(['nope:x']), state)).toMatchObject({
      ok: false,
      refusal: 'invalid_scope',
      detail: 'nope:x',
    });
  });
});

describe('token: granted scopes recorded and signed', () => {
  const nextId = sequentialIds('00000000-0000-7000-9000-');
  const NOW = Date.parse('2026-11-22T00:00:00Z');
  const issuance = () => ({ now: NOW, eventId: nextId(), jti: `jti-${nextId()}`, metadata });
  const credential = given(evolveCredential, undefined, [
    credentialCreated(nextId(), { catalog, scopes: ['products:read', 'orders:read'] }),
  ]);
  const policy = { audiences: [AUD], ttlSeconds: 60, catalog };

  it('given a scope the credential holds, then the event and the claim carry it', () => {
    const decision = decideIssuePrivateToken(
      { ...issuance(), audience: AUD, scopes: ['orders:read', 'products:read'] },
      credential,
      policy,
    );
    expect(decision.ok && decision.events[0]!.data.scope).toBe('orders:read products:read');
    const claims = decision.ok && tokenClaims(decision.events[0]!, 'issuer', 'space');
    expect(claims && claims.scope).toBe('orders:read products:read');
  });

  it('given one it does not hold, then invalid_scope naming it, and no event', () => {
    expect(
      decideIssuePrivateToken(
        { ...issuance(), audience: AUD, scopes: ['cart:write'] },
        credential,
        policy,
      ),
    ).toEqual({
      ok: false,
      refusal: 'invalid_scope',
      events: [],
      detail: 'scope "cart:write" is not allowed to this client',
    });
  });

  it('given an empty catalog, then no scope in the event: issuance as before scopes', () => {
    const plain = given(evolveCredential, undefined, [credentialCreated(nextId())]);
    const decision = decideIssuePrivateToken({ ...issuance(), audience: AUD }, plain, {
      ...policy,
      catalog: {},
    });
    expect(decision.ok && 'scope' in decision.events[0]!.data).toBe(false);
    expect(plain.scopes).toBeNull();
  });

  /** A public token bought with a private token holding products:read and orders:read. */
  const publicIssuance = () => ({
    ...issuance(),
    spaceId: 'space-a',
    customerId: 'c',
    segmentId: 's',
    privateToken: {
      clientId: 'ci_1',
      spaceId: 'space-a',
      audience: AUD,
      jti: 'p-1',
      expiresAt: NOW / 1000 + 60,
      scopes: ['products:read', 'orders:read'],
      revoked: false,
    },
  });
  const pub = { ttlSeconds: 60, catalog };

  it('a public token asking for a private scope is refused; none asked: the public defaults held', () => {
    const command = publicIssuance();
    expect(
      decideIssuePublicToken({ ...command, scopes: ['orders:read'] }, credential, pub),
    ).toMatchObject({ ok: false, refusal: 'invalid_scope' });
    const defaults = decideIssuePublicToken(command, credential, pub);
    expect(defaults.ok && defaults.events[0]!.data.scope).toBe('products:read');
  });

  it('given a credential narrowed since, a private token holding the scope taken away buys nothing', () => {
    // Issue 51, item 9: introspection called it inactive, yet /v1/issue and token exchange sold.
    const narrowed = given(evolveCredential, undefined, [
      credentialCreated(nextId(), { catalog, scopes: ['products:read'] }),
    ]);
    const command = publicIssuance();
    expect(decideIssuePublicToken(command, narrowed, pub)).toMatchObject({
      ok: false,
      refusal: 'scope_withdrawn',
    });
    // The same token on the credential as it was: sold.
    expect(decideIssuePublicToken(command, credential, pub).ok).toBe(true);
  });

  it('given a catalog that no longer lists a scope the private token carries, it buys nothing', () => {
    // Issue 51, item 12: the credential still held the scope, so /v1/issue sold.
    const { 'orders:read': _removed, ...rest } = catalog[AUD]!;
    const narrower = { ...pub, catalog: { ...catalog, [AUD]: rest } };
    expect(decideIssuePublicToken(publicIssuance(), credential, narrower)).toMatchObject({
      ok: false,
      refusal: 'scope_withdrawn',
    });
  });
});

describe('policy: delegated-only scopes never in a private token', () => {
  const withDelegated: ScopeCatalog = {
    [AUD]: {
      ...catalog[AUD],
      'checkout:complete': { description: 'x', public: true, default: true, delegated: true },
    },
  };
  const allowed = ['products:read', 'checkout:complete'];

  it('asked for: invalid_scope naming it, never granted; none asked: not among the defaults', () => {
    expect(privateTokenScopes(withDelegated, AUD, allowed, ['checkout:complete'])).toEqual({
      ok: false,
      scope: 'checkout:complete',
      reason: 'delegated_only',
    });
    expect(privateTokenScopes(withDelegated, AUD, allowed, undefined)).toEqual({
      ok: true,
      scopes: ['products:read'],
    });
  });

  it('a public token keeps it for may_act within the credential, though the paying token lacks it', () => {
    const paying = { scopes: ['products:read'], allowed };
    expect(publicTokenScopes(withDelegated, AUD, paying, ['checkout:complete'])).toEqual({
      ok: true,
      scopes: ['checkout:complete'],
    });
    const narrow = { scopes: ['products:read'], allowed: ['products:read'] };
    expect(publicTokenScopes(withDelegated, AUD, narrow, ['checkout:complete'])).toMatchObject({
      ok: false,
      reason: 'not_allowed',
    });
  });
});
