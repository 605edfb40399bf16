import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { judgeAuthorizationRequest, requestedClientId } from '../src/request.js';

const ISSUER = 'https://auth.example/spaces/s1';
const CLIENT = {
  clientId: 'https://agent.example/client.json',
  redirectUris: ['http://127.0.0.1/cb'],
};

/** The request openid-client builds, as a client of ours would send it. */
async function built(parameters: Record<string, string>): Promise<URLSearchParams> {
  const config = new client.Configuration(
    { issuer: ISSUER, authorization_endpoint: `${ISSUER}/authorize` },
    CLIENT.clientId,
  );
  const challenge = await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier());
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: 'http://127.0.0.1:50123/cb',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'read write',
    state: client.randomState(),
    resource: 'https://mcp.example/mcp',
    ...parameters,
  });
  return url.searchParams;
}

/** `query` with `name` set to `value`, or removed when undefined. */
function changed(query: URLSearchParams, name: string, value?: string): URLSearchParams {
  const copy = new URLSearchParams(query);
  if (value === undefined) copy.delete(name);
  else copy.set(name, value);
  return copy;
}

describe('the authorization request (RFC 6749 §4.1.1, OAuth 2.1)', () => {
  it("takes openid-client's code + PKCE request, the loopback port its own", async () => {
    const query = await built({});
    expect(requestedClientId(query)).toEqual({ clientId: CLIENT.clientId });
    const judged = judgeAuthorizationRequest(query, CLIENT);
    expect(judged).toEqual({
      kind: 'ok',
      request: {
        clientId: CLIENT.clientId,
        redirectUri: 'http://127.0.0.1:50123/cb',
        codeChallenge: query.get('code_challenge'),
        scopes: ['read', 'write'],
        state: query.get('state'),
        resource: 'https://mcp.example/mcp',
      },
    });
  });

  it('shows, never redirects, a missing client or a redirect URI not registered', async () => {
    const query = await built({});
    expect(requestedClientId(changed(query, 'client_id'))).toMatchObject({ kind: 'shown' });
    for (const uri of [
      'https://evil.example/cb',
      'http://127.0.0.1:50123/cb/../x',
      'http://localhost:1/cb',
    ]) {
      const judged = judgeAuthorizationRequest(changed(query, 'redirect_uri', uri), CLIENT);
      expect(judged, uri).toMatchObject({ kind: 'shown', error: 'invalid_request' });
    }
    const twice = new URLSearchParams(query);
    twice.append('redirect_uri', 'http://127.0.0.1:50123/cb');
    expect(judgeAuthorizationRequest(twice, CLIENT)).toMatchObject({ kind: 'shown' });
    // None sent: the one registered is used; of two, none can be chosen.
    const none = changed(query, 'redirect_uri');
    expect(judgeAuthorizationRequest(none, CLIENT)).toMatchObject({ kind: 'ok' });
    const two = { ...CLIENT, redirectUris: ['http://127.0.0.1/cb', 'https://a.example/cb'] };
    expect(judgeAuthorizationRequest(none, two)).toMatchObject({ kind: 'shown' });
  });

  it('redirects every other refusal with its code and the state sent', async () => {
    const query = await built({ state: 'st-1' });
    const cases: Array<[string, string | undefined, string, RegExp]> = [
      ['code_challenge', undefined, 'invalid_request', /code_challenge is required/],
      ['code_challenge_method', undefined, 'invalid_request', /must be S256/],
      ['code_challenge_method', 'plain', 'invalid_request', /must be S256/],
      ['code_challenge', 'short', 'invalid_request', /43 base64url/],
      ['response_type', 'token', 'unsupported_response_type', /must be code/],
      ['response_type', undefined, 'invalid_request', /response_type is required/],
      ['response_mode', 'fragment', 'invalid_request', /response_mode/],
      ['scope', 'read  write', 'invalid_scope', /printable ASCII/],
      ['resource', 'not a uri', 'invalid_target', /absolute URI/],
      ['resource', 'https://mcp.example/#x', 'invalid_target', /fragment/],
      ['authorization_details', '{"type":"x"}', 'invalid_authorization_details', /array/],
      ['authorization_details', '[{"no":"type"}]', 'invalid_authorization_details', /type/],
      ['authorization_details', '[', 'invalid_authorization_details', /not JSON/],
    ];
    for (const [name, value, error, description] of cases) {
      const judged = judgeAuthorizationRequest(changed(query, name, value), CLIENT);
      expect(judged, `${name}=${value}`).toMatchObject({
        kind: 'redirected',
        redirectUri: 'http://127.0.0.1:50123/cb',
        error,
        state: 'st-1',
      });
      expect(judged.kind === 'redirected' && judged.description).toMatch(description);
    }
    const twoResources = new URLSearchParams(query);
    twoResources.append('resource', 'https://other.example/');
    expect(judgeAuthorizationRequest(twoResources, CLIENT)).toMatchObject({
      error: 'invalid_target',
    });
    const twoScopes = new URLSearchParams(query);
    twoScopes.append('scope', 'read');
    expect(judgeAuthorizationRequest(twoScopes, CLIENT)).toMatchObject({ error: 'invalid_scope' });
  });

  it('keeps authorization_details as objects and scopes once each', async () => {
    const details = [{ type: 'checkout', limit: 100 }];
    const query = await built({
      scope: 'read read',
      authorization_details: JSON.stringify(details),
    });
    expect(judgeAuthorizationRequest(query, CLIENT)).toMatchObject({
      kind: 'ok',
      request: { scopes: ['read'], authorizationDetails: details },
    });
  });
});
