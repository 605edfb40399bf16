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
