import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import express from 'express';
import Koa from 'koa';
import { SignJWT, calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createVerifier,
  expressVerifier,
  koaVerifier,
  verifyFetchRequest,
} from '../../../src/verify/index.js';
import { accessTokenHash } from '../../../src/crypto/dpop.js';
import { signAccessToken, type AccessTokenClaims } from '../../../src/crypto/access-tokens.js';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * token-authority/verify, as a Storefront API would use it: a real Koa app and a real Express app
 * in front of a resource, verifying tokens issued by the real service.
 */
const SPACE = 'space-kit';
let service: TestService;
let credential: { client_id: string; client_secret: string };
const servers: Server[] = [];

beforeAll(async () => {
  // The kit reads the service's JWKS and revocation list at the issuer's URL.
  service = await startTestService();
  credential = await createCredentialVia(service, SPACE);
});
afterAll(() => Promise.all(servers.map((server) => new Promise((done) => server.close(done)))));

const kit = () =>
  createVerifier({
    // The test service's issuer is a name; its endpoints are on the local port.
    issuer: 'http://token-authority.test',
    audience: AUDIENCE,
    revocationRefreshSeconds: 0.2,
    fetch: (input, init) =>
      fetch(String(input).replace('http://token-authority.test', service.baseUrl), init),
  });

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The resource server's public origin, configured as a deployment would. */
const RESOURCE_ORIGIN = 'https://storefront.example';

async function koaResource() {
  const app = new Koa();
  app.use(koaVerifier(kit(), { origin: RESOURCE_ORIGIN }));
  app.use((ctx) => {
    ctx.body = { customer: (ctx.state.token as { customer_id?: string }).customer_id };
  });
  return listen(app.callback());
}

async function publicToken(body: object = {}) {
  const privateToken = await privateTokenVia(service, credential);
  const response = await service.post(
    '/v1/issue',
    { customer_id: 'c-7', segment_id: 'vip', ...body },
    { authorization: `Bearer ${privateToken}`, 'x-service-space-id': SPACE },
  );
  return { privateToken, token: ((await response.json()) as { token: string }).token };
}

/**
 * A public token the service issued, carrying exactly `scope` (no claim when undefined) as issue
 * 41's issuance does: its claims signed again with the service's current key (the one its JWKS
 * publishes), so the test does not depend on which scopes the service grants by default.
 */
async function scopedToken(scope: string | undefined, body: object = {}) {
  const { token } = await publicToken(body);
  const { scope: _issued, ...claims } = decodeJwt(token);
  const scoped = scope === undefined ? claims : { ...claims, scope };
  return signAccessToken(service.api.commands.keys.current(), scoped as AccessTokenClaims);
}

/** A Koa resource whose route needs `cart:write`, beside one that needs nothing. */
async function koaCart() {
  const app = new Koa();
  const origin = RESOURCE_ORIGIN;
  const needs = koaVerifier(kit(), { origin, requiredScopes: ['cart:write'] });
  const open = koaVerifier(kit(), { origin });
  app.use((ctx, next) => (ctx.path === '/cart' ? needs(ctx, next) : open(ctx, next)));
  app.use((ctx) => {
    ctx.body = { scope: (ctx.state.token as { scope?: string }).scope ?? null };
  });
  return listen(app.callback());
}

const CART_CHALLENGE =
  'Bearer error="insufficient_scope", scope="cart:write", error_description="the token does not grant the scope cart:write"';

describe('token-authority/verify', () => {
  it('Koa: a public token passes with its claims; a private, a forged and a missing one do not', async () => {
    const url = await koaResource();
    const { privateToken, token } = await publicToken();
    const as = (value?: string) =>
      fetch(`${url}/graphql`, { headers: value ? { authorization: value } : {} });
    const ok = await as(`Bearer ${token}`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ customer: 'c-7' });
    const wrongKind = await as(`Bearer ${privateToken}`);
    expect(wrongKind.status).toBe(401);
    expect(wrongKind.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect((await as(`Bearer ${token.slice(0, -4)}AAAA`)).status).toBe(401);
    expect((await as()).status).toBe(401);
  });

  it('a token whose private token was revoked is refused within the polling interval', async () => {
    const url = await koaResource();
    const { privateToken, token } = await publicToken();
    const call = () => fetch(`${url}/graphql`, { headers: { authorization: `Bearer ${token}` } });
    expect((await call()).status).toBe(200);
    await service.post('/v1/revoke', { ...credential, token: privateToken });
    const revokedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 8000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await call()).status;
    }
    expect(status).toBe(401);
    // The service's list is cached up to a second, the kit polls every 0.2 s.
    expect(Date.now() - revokedAt).toBeLessThan(4000);
  });

  it('a DPoP-bound token: refused stolen (as Bearer, or without a proof), served with a proof by its key, once', async () => {
    const url = await koaResource();
    const browser = await generateKeyPair('ES256');
    const jwk = await exportJWK(browser.publicKey);
    const { token } = await publicToken({ dpop_jkt: await calculateJwkThumbprint(jwk) });
    const proof = (htu: string) =>
      new SignJWT({
        htm: 'GET',
        htu,
        iat: Math.floor(Date.now() / 1000),
        jti: crypto.randomUUID(),
        ath: accessTokenHash(token),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(browser.privateKey);
    const call = (headers: Record<string, string>) =>
      fetch(`${url}/graphql`, { headers }).then((response) => response.status);
    expect(await call({ authorization: `Bearer ${token}` })).toBe(401);
    expect(await call({ authorization: `DPoP ${token}` })).toBe(401);
    const good = await proof(`${RESOURCE_ORIGIN}/graphql`);
    expect(await call({ authorization: `DPoP ${token}`, dpop: good })).toBe(200);
    expect(await call({ authorization: `DPoP ${token}`, dpop: good })).toBe(401);
    // A proof made for another deployment, sent with that Host: the origin is configured.
    const elsewhere = await proof('http://other-deployment.example/graphql');
    expect(
      await call({
        authorization: `DPoP ${token}`,
        dpop: elsewhere,
        host: 'other-deployment.example',
        'x-forwarded-host': 'other-deployment.example',
      }),
    ).toBe(401);
    // The URL it was reached at is not the configured origin either.
    expect(
      await call({ authorization: `DPoP ${token}`, dpop: await proof(`${url}/graphql`) }),
    ).toBe(401);
    const thief = await generateKeyPair('ES256');
    const forged = await new SignJWT({
      htm: 'GET',
      htu: `${RESOURCE_ORIGIN}/graphql`,
      iat: Math.floor(Date.now() / 1000),
      jti: crypto.randomUUID(),
      ath: accessTokenHash(token),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(thief.publicKey) })
      .sign(thief.privateKey);
    expect(await call({ authorization: `DPoP ${token}`, dpop: forged })).toBe(401);
  });

  it('Express and fetch-style Requests get the same answers', async () => {
    const app = express();
    app.get(
      '/graphql',
      expressVerifier(kit(), { origin: RESOURCE_ORIGIN }),
      (_request, response) => {
        response.json({ customer: (response.locals.token as { customer_id: string }).customer_id });
      },
    );
    const url = await listen(app);
    const { token, privateToken } = await publicToken();
    const ok = await fetch(`${url}/graphql`, { headers: { authorization: `Bearer ${token}` } });
    expect(await ok.json()).toEqual({ customer: 'c-7' });
    expect(
      (await fetch(`${url}/graphql`, { headers: { authorization: `Bearer ${privateToken}` } }))
        .status,
    ).toBe(401);

    const verifier = kit();
    const passed = await verifyFetchRequest(
      verifier,
      new Request('https://storefront.example/graphql', {
        headers: { authorization: `Bearer ${token}` },
      }),
    );
    expect('token' in passed && passed.token.customer_id).toBe('c-7');
    const refused = await verifyFetchRequest(
      verifier,
      new Request('https://storefront.example/graphql'),
    );
    expect('refusal' in refused && refused.refusal.status).toBe(401);
  });

  it('a revocation list that cannot be refreshed past its staleness bound fails closed (503)', async () => {
    let offline = false;
    let offsetMs = 0;
    const verifier = createVerifier({
      issuer: 'http://token-authority.test',
      audience: AUDIENCE,
      revocationRefreshSeconds: 1,
      revocationMaxStaleSeconds: 30,
      now: () => Date.now() + offsetMs,
      fetch: (input, init) => {
        const url = String(input).replace('http://token-authority.test', service.baseUrl);
        if (offline && url.includes('/v1/revocations')) return Promise.reject(new Error('down'));
        return fetch(url, init);
      },
    });
    const { token } = await publicToken();
    const request = new Request('https://storefront.example/graphql', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect('token' in (await verifyFetchRequest(verifier, request))).toBe(true);
    offline = true;
    offsetMs = 10_000; // still within 30 s: the last list is used
    expect('token' in (await verifyFetchRequest(verifier, request))).toBe(true);
    offsetMs = 31_000;
    const stale = await verifyFetchRequest(verifier, request);
    expect('refusal' in stale && stale.refusal.status).toBe(503);
  });

  it('Koa: a route needing cart:write serves a token granting it and answers 403 insufficient_scope to one that does not', async () => {
    const url = await koaCart();
    const call = (path: string, token: string, headers: Record<string, string> = {}) =>
      fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
    const granted = await call('/cart', await scopedToken('cart:read cart:write'));
    expect(granted.status).toBe(200);
    expect(await granted.json()).toEqual({ scope: 'cart:read cart:write' });

    for (const lacking of [await scopedToken('cart:read'), await scopedToken(undefined)]) {
      const refused = await call('/cart', lacking);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toBe(CART_CHALLENGE);
      expect(await refused.json()).toEqual({
        error: 'insufficient_scope',
        error_description: 'the token does not grant the scope cart:write',
      });
      // The same token on a route that requires nothing is served.
      expect((await call('/graphql', lacking)).status).toBe(200);
    }
    // A token that is not valid is 401 on a scoped route too, whatever scope it claims.
    const forged = await scopedToken('cart:write');
    const invalid = await call('/cart', `${forged.slice(0, -4)}AAAA`);
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  });

  it('a DPoP-bound token lacking the scope is challenged as DPoP, after its proof verified', async () => {
    const url = await koaCart();
    const browser = await generateKeyPair('ES256');
    const jwk = await exportJWK(browser.publicKey);
    const token = await scopedToken('cart:read', { dpop_jkt: await calculateJwkThumbprint(jwk) });
    const proof = () =>
      new SignJWT({
        htm: 'GET',
        htu: `${RESOURCE_ORIGIN}/cart`,
        iat: Math.floor(Date.now() / 1000),
        jti: crypto.randomUUID(),
        ath: accessTokenHash(token),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(browser.privateKey);
    const call = async (headers: Record<string, string>) =>
      fetch(`${url}/cart`, { headers: { authorization: `DPoP ${token}`, ...headers } });
    // Without a proof the token is not valid here: 401, not 403.
    expect((await call({})).status).toBe(401);
    const refused = await call({ dpop: await proof() });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(CART_CHALLENGE.replace(/^Bearer/, 'DPoP'));
  });

  it('Express and fetch-style Requests answer a missing scope with the same 403', async () => {
    const app = express();
    app.post(
      '/cart',
      expressVerifier(kit(), { origin: RESOURCE_ORIGIN, requiredScopes: ['cart:write'] }),
      (_request, response) => {
        response.json({ scope: (response.locals.token as { scope?: string }).scope });
      },
    );
    const url = await listen(app);
    const writer = await scopedToken('cart:write');
    const reader = await scopedToken('cart:read');
    const post = (token: string) =>
      fetch(`${url}/cart`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(await (await post(writer)).json()).toEqual({ scope: 'cart:write' });
    const refused = await post(reader);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(CART_CHALLENGE);
    expect((await refused.json()) as { error: string }).toMatchObject({
      error: 'insufficient_scope',
    });

    const verifier = kit();
    const cart = (token: string) =>
      verifyFetchRequest(
        verifier,
        new Request(`${RESOURCE_ORIGIN}/cart`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
        }),
        { requiredScopes: ['cart:write'] },
      );
    const passed = await cart(writer);
    expect('token' in passed && passed.token.scope).toBe('cart:write');
    const answer = await cart(reader);
    expect('refusal' in answer && answer.refusal.status).toBe(403);
    expect('refusal' in answer && answer.refusal.headers.get('www-authenticate')).toBe(
      CART_CHALLENGE,
    );
  });
});
