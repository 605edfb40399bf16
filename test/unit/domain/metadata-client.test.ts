import { describe, expect, it } from 'vitest';
import {
  decideAllowDomain,
  decideFirstSeen,
  decideRemoveDomain,
  metadataClientIdRefusal,
  metadataDocumentRefusal,
  type MetadataClientDomain,
} from '../../../src/domain/metadata-client/decide.js';

const metadata = {
  actor: 'user:alice',
  request_id: 'r1',
  client_ip: '127.0.0.1',
  user_agent: null,
};
const command = {
  eventId: 'e1',
  metadata,
  spaceId: 'space-a',
  domain: 'agents.example',
  budgetPerMinute: 600,
};
const allowed: MetadataClientDomain = {
  spaceId: 'space-a',
  domain: 'agents.example',
  scopes: ['orders:read'],
  budgetPerMinute: 600,
  removed: false,
};
const URL_ID = 'https://agents.example/shopper.json';

describe('a space allowing a domain', () => {
  it('given none, when an admin allows it, then allowed is recorded naming who', () => {
    const decision = decideAllowDomain({ ...command, scopes: ['orders:read'] }, undefined);
    expect(decision.events).toMatchObject([
      {
        type: 'metadata-client-domain-allowed',
        data: { domain: 'agents.example', budget_per_minute: 600 },
        metadata,
      },
    ]);
  });

  it('given it allowed with those scopes, when allowed again, then nothing is recorded', () => {
    expect(decideAllowDomain({ ...command, scopes: ['orders:read'] }, allowed).events).toEqual([]);
    expect(decideAllowDomain(command, allowed).events).toHaveLength(1);
    // Another budget is a change, recorded.
    const rebudget = { ...command, scopes: ['orders:read'], budgetPerMinute: 60 };
    expect(decideAllowDomain(rebudget, allowed).events[0]?.data.budget_per_minute).toBe(60);
  });

  it('given a space at METADATA_DOMAIN_MAX_PER_SPACE, a new domain is refused; one it allows may change', () => {
    const full = { ...command, domains: { count: 2, limit: 2 } };
    expect(decideAllowDomain(full, undefined)).toMatchObject({
      ok: false,
      refusal: 'domain_limit',
    });
    expect(decideAllowDomain(full, { ...allowed, removed: true })).toMatchObject({ ok: false });
    expect(decideAllowDomain(full, allowed).events).toHaveLength(1);
    expect(decideAllowDomain({ ...full, domains: { count: 1, limit: 2 } }, undefined).ok).toBe(
      true,
    );
  });

  it('given it allowed, when removed, then removed once; given none, not found', () => {
    expect(decideRemoveDomain(command, allowed).events[0]?.type).toBe(
      'metadata-client-domain-removed',
    );
    expect(decideRemoveDomain(command, { ...allowed, removed: true }).events).toEqual([]);
    expect(decideRemoveDomain(command, undefined)).toMatchObject({ ok: false });
  });
});

describe("a document's first use", () => {
  it('when first seen, then one event on a stream named by the space and the URL', () => {
    const first = decideFirstSeen({ ...command, clientId: URL_ID, thumbprints: ['t1'] });
    expect(first.event.data).toEqual({
      client_id: URL_ID,
      domain: 'agents.example',
      key_thumbprints: ['t1'],
    });
    const again = decideFirstSeen({ ...command, eventId: 'e2', clientId: URL_ID, thumbprints: [] });
    expect(again.placed).toEqual(first.placed);
  });
});

describe('the draft’s rules for a client id and its document', () => {
  it('refuses an id that is not https, has no path, a fragment, a user or dot segments', () => {
    expect(metadataClientIdRefusal(URL_ID)).toBeUndefined();
    for (const bad of [
      'http://agents.example/a.json',
      'https://agents.example/',
      'https://agents.example/a.json#x',
      'https://user:pw@agents.example/a.json',
      'https://agents.example/x/../a.json',
      'https://Agents.example/a.json',
    ]) {
      expect(metadataClientIdRefusal(bad), bad).toBeDefined();
    }
  });

  it('refuses a document not naming its URL, holding a secret, or without keys', () => {
    const jwks = { keys: [] };
    expect(metadataDocumentRefusal(URL_ID, { client_id: URL_ID, jwks })).toBeUndefined();
    expect(metadataDocumentRefusal(URL_ID, { client_id: `${URL_ID}x`, jwks })).toMatch(/URL/);
    expect(
      metadataDocumentRefusal(URL_ID, { client_id: URL_ID, jwks, client_secret: 's' }),
    ).toBeDefined();
    expect(
      metadataDocumentRefusal(URL_ID, {
        client_id: URL_ID,
        jwks,
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    ).toBeDefined();
    expect(metadataDocumentRefusal(URL_ID, { client_id: URL_ID })).toMatch(/jwks/);
  });
});
