import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/net/free-port.js';
import {
  AUDIENCE,
  createCredentialVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

let service: TestService;
let issuer: string;

beforeAll(async () => {
  // Discovery builds every URL from TOKEN_ISSUER: it must be where the service really answers.
  const port = await freePort();
  issuer = `http://127.0.0.1:${port}`;
  service = await startTestService({ PORT: String(port), TOKEN_ISSUER: issuer });
});

describe('OAuth discovery (RFC 8414)', () => {
  it('publishes the token, introspection and revocation endpoints, the JWKS, grants and client authentication', async () => {
    const response = await fetch(`${service.baseUrl}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      issuer,
      token_endpoint: `${issuer}/v1/credential/token`,
      introspection_endpoint: `${issuer}/v1/introspect`,
      revocation_endpoint: `${issuer}/v1/revoke`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      grant_types_supported: [
        'client_credentials',
        'urn:ietf:params:oauth:grant-type:token-exchange',
        'urn:ietf:params:oauth:grant-type:jwt-bearer',
        'authorization_code',
        'refresh_token',
      ],
      token_endpoint_auth_methods_supported: [
        'client_secret_basic',
        'client_secret_post',
        'private_key_jwt',
        'federated-jwt',
      ],
    });
  });

  it.each(['oidc', 'oauth2'] as const)(
    'lets openid-client configure itself from the issuer URL alone (%s discovery), get a token, introspect and revoke it',
    async (algorithm) => {
      const credential = await createCredentialVia(service, 'space-discovery');
      const config = await oauth.discovery(
        new URL(issuer),
        credential.client_id,
        undefined,
        oauth.ClientSecretBasic(credential.client_secret),
        { execute: [oauth.allowInsecureRequests], algorithm },
      );
      const tokens = await oauth.clientCredentialsGrant(config, { audience: AUDIENCE });
      const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
      const { payload } = await jwtVerify(tokens.access_token, jwks, {
        issuer,
        audience: AUDIENCE,
      });
      expect(payload.client_id).toBe(credential.client_id);

      const active = await oauth.tokenIntrospection(config, tokens.access_token);
      expect(active).toMatchObject({ active: true, client_id: credential.client_id });
      await oauth.tokenRevocation(config, tokens.access_token);
      expect(await oauth.tokenIntrospection(config, tokens.access_token)).toMatchObject({
        active: false,
      });
    },
  );
});

describe('client authentication as libraries send it', () => {
  const basic = (id: string, secret: string) =>
    `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  const grant = (headers: Record<string, string>, body: Record<string, string>) =>
    fetch(`${service.baseUrl}/v1/credential/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8', ...headers },
      body: new URLSearchParams({ grant_type: 'client_credentials', audience: AUDIENCE, ...body }),
    });

  it('accepts HTTP Basic with the same client_id repeated in the body, refuses two secrets or two ids', async () => {
    const credential = await createCredentialVia(service, 'space-discovery');
    const auth = { authorization: basic(credential.client_id, credential.client_secret) };
    expect((await grant(auth, {})).status).toBe(200);
    expect((await grant(auth, { client_id: credential.client_id })).status).toBe(200);
    const twoSecrets = await grant(auth, { client_secret: credential.client_secret });
    expect(twoSecrets.status).toBe(400);
    expect(await twoSecrets.json()).toMatchObject({ error: 'invalid_request' });
    expect((await grant(auth, { client_id: 'ci_someone_else' })).status).toBe(400);
  });

  it('reads a Basic header in the URL-safe base64 alphabet some clients use', async () => {
    const credential = await createCredentialVia(service, 'space-discovery');
    const urlSafe = `Basic ${Buffer.from(`${credential.client_id}:${credential.client_secret}`).toString('base64url')}`;
    expect((await grant({ authorization: urlSafe }, {})).status).toBe(200);
  });
});
