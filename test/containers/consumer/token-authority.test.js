import { afterAll, beforeAll, expect, test } from 'vitest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { TokenAuthorityContainer } from 'token-authority-testcontainers';

let authority;
beforeAll(async () => {
  // The image built from token-authority's Dockerfile (default `token-authority:local`, or
  // TOKEN_AUTHORITY_IMAGE); Postgres defaults to the official postgres:17-alpine.
  authority = await new TokenAuthorityContainer()
    .withPostgresImage(process.env.POSTGRES_IMAGE ?? 'postgres:17-alpine')
    .start();
}, 180_000);
afterAll(() => authority?.stop());

test('a private token from the real service verifies against its JWKS', async () => {
  const login = await authority.loginToken('my-space');
  const created = await fetch(`${authority.url}/v1/credential`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${login}`,
      'x-service-space-id': 'my-space',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ name: 'storefront', description: 'integration test' }),
  });
  expect(created.status).toBe(201);
  const client = await created.json();
  const granted = await fetch(`${authority.url}/v1/credential/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: `grant_type=client_credentials&audience=${authority.audiences[0]}`,
  });
  expect(granted.status).toBe(200);
  const { access_token } = await granted.json();
  const { payload } = await jwtVerify(
    access_token,
    createRemoteJWKSet(new URL(authority.jwksUrl)),
    {
      issuer: authority.issuer,
      audience: authority.audiences[0],
    },
  );
  expect(payload.client_id).toBe(client.client_id);
});
