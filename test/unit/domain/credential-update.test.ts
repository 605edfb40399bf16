import { describe, expect, it } from 'vitest';
import { decideUpdateCredential } from '../../../src/domain/credential/decide-update.js';
import { decideChangeRedirectUris } from '../../../src/domain/credential/decide.js';
import { evolveCredential } from '../../../src/domain/credential/evolve.js';
import type { ScopeCatalog } from '../../../src/domain/scope-catalog.js';
import { credentialCreated, given, metadata, sequentialIds } from '../../support/given.js';

const nextId = sequentialIds();
const catalog: ScopeCatalog = {
  'storefront.api.local': {
    'catalog:read': { description: 'read the catalog', public: true, default: true },
    'orders:write': { description: 'place orders', public: false, default: false },
  },
};
const update = {
  spaceId: 'space-a',
  clientId: 'ci_1',
  actor: 'user:alice',
  metadata,
  eventIds: nextId,
  catalog,
  spaceCeiling: 600,
};
const credential = () =>
  given(evolveCredential, undefined, [credentialCreated(nextId(), { catalog })]);

describe('credential: several changes asked at once (PATCH)', () => {
  it('given a credential, when its scopes and limit change together, then both events, scopes first', () => {
    const decision = decideUpdateCredential(
      { ...update, scopes: ['orders:write'], rateLimitPerMinute: 120 },
      credential(),
    );
    expect(decision.ok).toBe(true);
    expect(decision.events.map((event) => event.type)).toEqual([
      'credential-scopes-changed',
      'credential-rate-limit-changed',
    ]);
    const after = given(evolveCredential, credential(), decision.events);
    expect(after).toMatchObject({ scopes: ['orders:write'], rateLimitPerMinute: 120 });
  });

  it('when a later change is refused, then none is made (issue 51: no half-applied PATCH)', () => {
    const decision = decideUpdateCredential(
      { ...update, scopes: ['orders:write'], rateLimitPerMinute: 601 },
      credential(),
    );
    expect(decision).toEqual({ ok: false, refusal: 'over_space_ceiling', events: [] });
  });

  it('when a scope no catalog lists is asked, then invalid_scope naming it', () => {
    expect(decideUpdateCredential({ ...update, scopes: ['nope'] }, credential())).toEqual({
      ok: false,
      refusal: 'invalid_scope',
      events: [],
      detail: 'nope',
    });
  });

  it('when what is asked is what it has, or nothing is asked, then no events', () => {
    expect(decideUpdateCredential({ ...update, rateLimitPerMinute: null }, credential())).toEqual({
      ok: true,
      events: [],
      facts: undefined,
    });
    expect(decideUpdateCredential(update, credential()).events).toEqual([]);
  });

  it('given no credential in the space, then not_found', () => {
    expect(
      decideUpdateCredential(
        { ...update, spaceId: 'space-b', rateLimitPerMinute: 5 },
        credential(),
      ),
    ).toEqual({ ok: false, refusal: 'not_found', events: [] });
  });
});

describe('credential: its redirect URIs (issue 64 item 4)', () => {
  const uris = ['https://shop.example/callback', 'http://127.0.0.1/callback'];
  it('given a credential, when redirect URIs are set, then it is a code-flow client; set again, nothing', () => {
    const decision = decideChangeRedirectUris(
      { ...update, eventId: nextId(), redirectUris: uris },
      credential(),
    );
    expect(decision.events.map((event) => event.type)).toEqual([
      'credential-redirect-uris-changed',
    ]);
    const after = given(evolveCredential, credential(), decision.events);
    expect(after.redirectUris).toEqual(uris);
    expect(
      decideChangeRedirectUris({ ...update, eventId: nextId(), redirectUris: uris }, after).events,
    ).toEqual([]);
    const cleared = decideChangeRedirectUris(
      { ...update, eventId: nextId(), redirectUris: [] },
      after,
    );
    expect(given(evolveCredential, after, cleared.events).redirectUris).toEqual([]);
  });

  it('given a revoked credential, when its redirect URIs change, then refused', () => {
    const revoked = { ...credential(), status: 'revoked' as const };
    expect(
      decideChangeRedirectUris({ ...update, eventId: nextId(), redirectUris: uris }, revoked).ok,
    ).toBe(false);
  });
});
