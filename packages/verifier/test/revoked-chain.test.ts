import { afterEach, describe, expect, it } from 'vitest';
import {
  publicToken,
  refusal,
  request,
  revocationList,
  stubVerifier,
} from './support/stub-issuer.js';

// A delegated token stands on every credential in its act chain: the storefront's revoked or
// narrowed in the list, the token its agent got by exchange is refused too.
const AGENT = 'ci_agent';
const STOREFRONT = 'ci_storefront';
const later = () => new Date(Date.now() + 60_000).toISOString();
const bearer = async (token: Promise<string>) => request(`Bearer ${await token}`);

afterEach(() => {
  Object.assign(revocationList, {
    clients: [],
    tokens: [],
    narrowed_clients: [],
    removed_client_domains: [],
  });
});

describe('the revocation list and the act chain', () => {
  it('refuses a delegated token whose storefront the list names revoked', async () => {
    const token = publicToken([AGENT, STOREFRONT]);
    expect((await stubVerifier().verify(await bearer(token))).actors).toEqual([AGENT, STOREFRONT]);
    revocationList.clients = [{ client_id: STOREFRONT, revoked_at: later() }];
    const error = await refusal(stubVerifier().verify(await bearer(token)));
    expect(error.status).toBe(401);
    expect(error.message).toMatch(/revoked/);
  });

  it('refuses one carrying a scope its storefront no longer allows', async () => {
    const token = publicToken([AGENT, STOREFRONT], 'cart:write');
    revocationList.narrowed_clients = [{ client_id: STOREFRONT, scopes: ['products:read'] }];
    expect((await refusal(stubVerifier().verify(await bearer(token)))).status).toBe(401);
    revocationList.narrowed_clients = [{ client_id: STOREFRONT, scopes: ['cart:write'] }];
    expect((await stubVerifier().verify(await bearer(token))).client_id).toBe(AGENT);
  });

  it('refuses a token whose client or chain agent is a URL under a removed domain', async () => {
    const url = 'https://agents.example.com/a.json';
    const removed = [{ domain: 'agents.example.com', removed_at: later() }];
    const asClient = publicToken([url, STOREFRONT]);
    expect((await stubVerifier().verify(await bearer(asClient))).client_id).toBe(url);
    revocationList.removed_client_domains = removed;
    expect((await refusal(stubVerifier().verify(await bearer(asClient)))).message).toMatch(
      /revoked/,
    );
    const inChain = publicToken([AGENT, url, STOREFRONT]);
    expect((await refusal(stubVerifier().verify(await bearer(inChain)))).status).toBe(401);
    const otherDomain = publicToken(['https://other.example.com/a.json', STOREFRONT]);
    expect((await stubVerifier().verify(await bearer(otherDomain))).actors).toHaveLength(2);
  });
});
