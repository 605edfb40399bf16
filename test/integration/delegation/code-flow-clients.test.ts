import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, koaResourceMetadata, koaVerifier } from '../../../src/verify/index.js';
import { afterFile } from '../../support/after-file.js';
import { delegationParties } from '../../support/delegation.js';
import { startLocalDocuments } from '../../support/local-documents.js';
import { freePortBelow32768 } from '../../support/postgres-source.js';
import { adminCall, startTestService, type TestService } from '../../support/test-service.js';

/**
 * Issue 64's "done when", by code nobody here wrote. The MCP TypeScript SDK's client `auth()`, unchanged,
 * against an MCP server guarded by the verifier kit: RFC 9728 discovery, the space's RFC 8414
 * metadata, the agent's client ID metadata document as its client id, /authorize, the
 * storefront's consent, the code exchanged with PKCE, and a call the kit lets through. And
 * openid-client's code flow with PKCE and DPoP, configured from the space's issuer URL alone.
 */
const SPACE = 'space-mcp-sdk';
const CALLBACK = 'http://127.0.0.1:53111/callback';

let service: TestService;
let resource: string;
let agent: string;

/** An MCP server's resource, guarded by the kit: its metadata, and `/mcp` for delegated tokens. */
async function startResourceServer(port: number, issuer: string): Promise<string> {
  const url = `http://127.0.0.1:${port}/mcp`;
  const verifier = createVerifier({
    issuer,
    audience: url,
    resourceMetadata: { resource: url, scopesSupported: ['products:read'], alsoAtRoot: true },
  });
  const router = new Router();
  router.post(
    '/mcp',
    koaVerifier(verifier, {
      origin: new URL(url).origin,
      requiredScopes: ['products:read'],
      delegation: 'required',
    }),
    (ctx) => {
      const token = ctx.state.token as { customer_id: string; actors: readonly string[] };
      ctx.body = { customer: token.customer_id, actors: token.actors };
    },
  );
  const app = new Koa();
  app.use(koaResourceMetadata(verifier));
  app.use(router.routes());
  const server = app.listen(port, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  afterFile(() => new Promise<void>((resolve) => server.close(() => resolve())));
  expect((server.address() as AddressInfo).port).toBe(port);
  return url;
}

/** What an MCP client keeps between its two `auth()` calls, as the SDK's provider interface asks. */
function clientProvider() {
  const kept: {
    info?: OAuthClientInformationMixed;
    tokens?: OAuthTokens;
    verifier?: string;
    authorizationUrl?: URL;
  } = {};
  const provider: OAuthClientProvider = {
    get redirectUrl() {
      return CALLBACK;
    },
    clientMetadataUrl: agent,
    get clientMetadata() {
      return {
        redirect_uris: [CALLBACK],
        client_name: 'SDK agent',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
      };
    },
    clientInformation: () => kept.info,
    saveClientInformation: (info) => void (kept.info = info),
    tokens: () => kept.tokens,
    saveTokens: (tokens) => void (kept.tokens = tokens),
    redirectToAuthorization: (url) => void (kept.authorizationUrl = url),
    saveCodeVerifier: (verifier) => void (kept.verifier = verifier),
    codeVerifier: () => kept.verifier!,
  };
  return { provider, kept };
}

beforeAll(async () => {
  const port = await freePortBelow32768();
  const issuer = `http://127.0.0.1:${port}`;
  // The resource's URL is an audience: its port is taken first, the server started after.
  const resourcePort = await freePortBelow32768();
  resource = `http://127.0.0.1:${resourcePort}/mcp`;
  service = await startTestService({
    PORT: String(port),
    TOKEN_ISSUER: issuer,
    TOKEN_AUDIENCES: `storefront.test,${resource}`,
    SCOPE_CATALOG: JSON.stringify({
      'storefront.test': { 'products:read': { description: 'read', public: true, default: true } },
      [resource]: { 'products:read': { description: 'read', public: true, default: true } },
    }),
  });
  const docs = await startLocalDocuments();
  agent = `https://localhost:${docs.port}/agents/sdk.json`;
  docs.serve('/agents/sdk.json', {
    body: {
      client_id: agent,
      client_name: 'SDK agent',
      token_endpoint_auth_method: 'none',
      redirect_uris: [CALLBACK],
    },
  });
  for (const [path, body] of [
    ['/v1/space/signing-keys', undefined],
    ['/v1/metadata-client-domains', { domain: 'localhost', scopes: ['products:read'] }],
    ['/v1/authorization-app', { interaction_url: 'https://shop.example/consent' }],
  ] as const) {
    const response = await adminCall(service, SPACE, 'POST', path, body);
    expect(response.status, `${path}: ${await response.text()}`).toBeLessThan(300);
  }
  expect(await startResourceServer(resourcePort, `${issuer}/spaces/${SPACE}`)).toBe(resource);
});

/** The browser at `asked`: to the consent page, the storefront accepts, back with the code. */
async function consented(asked: URL): Promise<URL> {
  const sent = await fetch(asked, { redirect: 'manual' });
  expect(sent.status, await sent.clone().text()).toBe(302);
  const cookie = sent.headers.get('set-cookie')!.split(';')[0]!;
  const requestId = new URL(sent.headers.get('location')!).searchParams.get(
    'authorization_request',
  )!;
  // The storefront's consent backend holds a private token for the resource asked for.
  const parties = delegationParties(() => service, SPACE);
  const credential = await parties.credential(['products:read']);
  const bought = await service.post('/v1/credential/token', {
    ...credential,
    grant_type: 'client_credentials',
    audience: resource,
    scope: 'products:read',
  });
  const { access_token: storefront } = (await bought.json()) as { access_token: string };
  const accepted = await fetch(`${service.baseUrl}/v1/authorization-requests/${requestId}/accept`, {
    method: 'POST',
    headers: { authorization: `Bearer ${storefront}`, 'content-type': 'application/json' },
    body: JSON.stringify({ customer_id: 'c-9', segment_id: 'retail' }),
  });
  const { redirect_to: resume } = (await accepted.json()) as { redirect_to: string };
  const back = await fetch(resume, { redirect: 'manual', headers: { cookie } });
  return new URL(back.headers.get('location')!);
}

describe("the MCP SDK's auth(), unchanged", () => {
  it('goes from discovery to a call the kit lets through, the customer consenting on the storefront', async () => {
    const { provider, kept } = clientProvider();
    expect(await auth(provider, { serverUrl: resource })).toBe('REDIRECT');
    const asked = kept.authorizationUrl!;
    expect(asked.origin + asked.pathname).toBe(`${service.baseUrl}/spaces/${SPACE}/authorize`);
    expect(asked.searchParams.get('client_id')).toBe(agent);
    expect(asked.searchParams.get('resource')).toBe(resource);
    const callback = await consented(asked);
    expect(callback.searchParams.get('iss')).toBe(`${service.baseUrl}/spaces/${SPACE}`);
    const code = callback.searchParams.get('code')!;
    expect(await auth(provider, { serverUrl: resource, authorizationCode: code })).toBe(
      'AUTHORIZED',
    );
    const token = kept.tokens!.access_token;
    expect(decodeJwt(token)).toMatchObject({
      iss: `${service.baseUrl}/spaces/${SPACE}`,
      aud: resource,
      sub: 'c-9',
      act: { sub: agent },
    });
    const call = await fetch(resource, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(call.status, await call.clone().text()).toBe(200);
    expect(await call.json()).toEqual({ customer: 'c-9', actors: [agent, expect.any(String)] });
  });
});

describe('openid-client, as an OAuth 2.1 client would use it', () => {
  it('runs the code flow with PKCE and DPoP from the space issuer alone, and calls the resource', async () => {
    const config = await client.discovery(
      new URL(`${service.baseUrl}/spaces/${SPACE}`),
      agent,
      { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' },
      client.None(),
      { execute: [client.allowInsecureRequests] },
    );
    expect(config.serverMetadata()).toMatchObject({
      authorization_endpoint: `${service.baseUrl}/spaces/${SPACE}/authorize`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const asked = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      scope: 'products:read',
      state,
      resource,
    });
    const callback = await consented(asked);
    const DPoP = client.getDPoPHandle(config, await client.randomDPoPKeyPair('ES256'));
    // openid-client checks iss (RFC 9207) and state on the callback itself.
    const tokens = await client.authorizationCodeGrant(
      config,
      callback,
      { pkceCodeVerifier: verifier, expectedState: state },
      { resource },
      { DPoP },
    );
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    expect(decodeJwt(tokens.access_token)).toMatchObject({ cnf: { jkt: expect.any(String) } });
    const call = await client.fetchProtectedResource(
      config,
      tokens.access_token,
      new URL(resource),
      'POST',
      undefined,
      undefined,
      { DPoP },
    );
    expect(call.status, await call.clone().text()).toBe(200);
    // Without the key, the bound token is refused.
    const stolen = await fetch(resource, {
      method: 'POST',
      headers: { authorization: `DPoP ${tokens.access_token}` },
    });
    expect(stolen.status).toBe(401);
  });
});

describe('a registered credential as a code-flow client (issue 64 item 4)', () => {
  const registered = async (body: Record<string, unknown>, space = SPACE) => {
    const response = await adminCall(service, space, 'POST', '/v1/credential', {
      name: 'registered agent',
      description: 'a confidential code-flow client',
      scopes: ['products:read'],
      ...body,
    });
    expect(response.status, await response.clone().text()).toBe(201);
    return (await response.json()) as { client_id: string; client_secret: string };
  };
  const authorizeAs = async (clientId: string) => {
    const verifier = client.randomPKCECodeVerifier();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      scope: 'products:read',
      resource,
    });
    return { url: new URL(`${service.baseUrl}/spaces/${SPACE}/authorize?${query}`), verifier };
  };

  it('runs the code flow with openid-client and client_secret_basic, and must authenticate to redeem or refresh', async () => {
    const { client_id: clientId, client_secret: secret } = await registered({
      redirect_uris: [CALLBACK],
    });
    const config = await client.discovery(
      new URL(`${service.baseUrl}/spaces/${SPACE}`),
      clientId,
      { redirect_uris: [CALLBACK] },
      client.ClientSecretBasic(secret),
      { execute: [client.allowInsecureRequests] },
    );
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const asked = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      scope: 'products:read',
      state,
      resource,
    });
    const tokens = await client.authorizationCodeGrant(
      config,
      await consented(asked),
      { pkceCodeVerifier: verifier, expectedState: state },
      { resource },
    );
    // The agent acts (`act`, RFC 8693 §4.1) for the customer, the storefront that consented before it.
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      sub: 'c-9',
      aud: resource,
      client_id: clientId,
      act: { sub: clientId },
    });
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(decodeJwt(refreshed.access_token)).toMatchObject({ act: { sub: clientId } });

    // The client_id alone, as a public client would send it: refused, nothing spent.
    const second = await authorizeAs(clientId);
    const code = (await consented(second.url)).searchParams.get('code')!;
    const token = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      service.post('/v1/credential/token', body, headers);
    const redemption = {
      grant_type: 'authorization_code',
      code,
      code_verifier: second.verifier,
      redirect_uri: CALLBACK,
      resource,
    };
    const bare = await token({ ...redemption, client_id: clientId });
    expect(bare.status).toBe(401);
    expect(await bare.json()).toMatchObject({ error: 'invalid_client' });
    const wrong = await token(redemption, {
      authorization: `Basic ${Buffer.from(`${clientId}:${'x'.repeat(43)}`).toString('base64')}`,
    });
    expect(wrong.status).toBe(401);
    const basic = `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
    const redeemed = await token(redemption, { authorization: basic });
    expect(redeemed.status, await redeemed.clone().text()).toBe(200);
    const { refresh_token: refresh } = (await redeemed.json()) as { refresh_token: string };
    const bareRefresh = await token({
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: clientId,
    });
    expect(bareRefresh.status).toBe(401);
    const refreshedAgain = await token(
      { grant_type: 'refresh_token', refresh_token: refresh },
      { authorization: basic },
    );
    expect(refreshedAgain.status, await refreshedAgain.clone().text()).toBe(200);
  });

  it('takes only an active credential of the space with redirect URIs: never another space’s, a revoked one, or one without', async () => {
    const shown = async (clientId: string) => {
      const response = await fetch((await authorizeAs(clientId)).url, { redirect: 'manual' });
      expect(response.headers.get('location')).toBeNull();
      expect(response.status).toBe(400);
      return (await response.json()) as { message?: string; error_description?: string };
    };
    const none = await registered({});
    expect(JSON.stringify(await shown(none.client_id))).toContain('registered no redirect_uris');
    const elsewhere = await registered({ redirect_uris: [CALLBACK] }, 'space-other-registered');
    expect(JSON.stringify(await shown(elsewhere.client_id))).toContain('no active client');
    const changed = await registered({ redirect_uris: [CALLBACK] });
    const first = await fetch((await authorizeAs(changed.client_id)).url, { redirect: 'manual' });
    expect(first.status).toBe(302);
    const cleared = await adminCall(
      service,
      SPACE,
      'PATCH',
      `/v1/credential/${changed.client_id}`,
      { redirect_uris: [] },
    );
    expect(cleared.status, await cleared.clone().text()).toBe(200);
    expect(await cleared.json()).not.toHaveProperty('redirect_uris');
    // The credential lookup caches rows for CREDENTIAL_CACHE_TTL_MS; the test service reads fresh.
    expect(JSON.stringify(await shown(changed.client_id))).toContain('registered no redirect_uris');
    const revoked = await registered({ redirect_uris: [CALLBACK] });
    await adminCall(service, SPACE, 'DELETE', `/v1/credential/${revoked.client_id}`);
    expect(JSON.stringify(await shown(revoked.client_id))).toContain('no active client');
    for (const [uri, why] of [
      ['http://shop.example/callback', 'must be https'],
      [' https://shop.example/callback', 'whitespace'],
      ['https://shop.example/c\tb', 'whitespace'],
      ['https://shop.example/cb\n', 'whitespace'],
    ]) {
      const bad = await adminCall(service, SPACE, 'POST', '/v1/credential', {
        name: 'bad',
        description: 'bad redirect',
        redirect_uris: [uri],
      });
      expect(bad.status, uri).toBe(400);
      expect(await bad.text(), uri).toContain(why);
    }
  });

  it('an agent that is a credential of the space does not consent to its own request', async () => {
    const own = await registered({ redirect_uris: [CALLBACK] });
    const sent = await fetch((await authorizeAs(own.client_id)).url, { redirect: 'manual' });
    expect(sent.status).toBe(302);
    const requestId = new URL(sent.headers.get('location')!).searchParams.get(
      'authorization_request',
    )!;
    const bought = await service.post('/v1/credential/token', {
      ...own,
      grant_type: 'client_credentials',
      audience: resource,
      scope: 'products:read',
    });
    const { access_token: token } = (await bought.json()) as { access_token: string };
    const accepted = await fetch(
      `${service.baseUrl}/v1/authorization-requests/${requestId}/accept`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ customer_id: 'victim', segment_id: 'retail' }),
      },
    );
    expect(accepted.status).toBe(403);
    expect(await accepted.text()).toContain('its own authorization request');
  });
});
