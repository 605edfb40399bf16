import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { signAccessToken, type PublicTokenClaims } from '../../src/crypto/access-tokens.js';
import { accessTokenHash } from '../../src/crypto/dpop.js';
import {
  VerifyError,
  createVerifier,
  koaVerifier,
  type VerifierOptions,
} from '../../src/verify/index.js';

/**
 * The kit's scope check (issue 41): a route's `requiredScopes`, all of them, against the token's
 * `scope` claim, refused with 403 and RFC 6750 §3.1's challenge, and only once the token itself
 * verified. The issuer is a fetch stub serving a JWKS and an empty revocation list.
 */
const ISSUER = 'https://tokens.test';
const AUDIENCE = 'storefront.test';
const signingKey = { kid: 'k1', privateKey: generateKeyPairSync('ed25519').privateKey };

const issuerFetch: typeof fetch = (input) => {
  const url = String(input);
  if (url === `${ISSUER}/.well-known/jwks.json`) {
    const jwk = { ...signingKey.privateKey.export({ format: 'jwk' }), d: undefined, kid: 'k1' };
    return Promise.resolve(Response.json({ keys: [jwk] }));
  }
  if (url.startsWith(`${ISSUER}/v1/revocations?`))
    return Promise.resolve(Response.json({ clients: [], tokens: [] }));
  return Promise.resolve(new Response(null, { status: 404 }));
};

const kit = (options: Partial<VerifierOptions> = {}) =>
  createVerifier({ issuer: ISSUER, audience: AUDIENCE, fetch: issuerFetch, ...options });

/** A public token of this issuer, with `scope` when given (no claim at all otherwise). */
function token(scope?: string, extra: { exp?: number; jkt?: string } = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const claims: PublicTokenClaims & { scope?: string } = {
    iss: ISSUER,
    sub: 'c-7',
    aud: AUDIENCE,
    exp: extra.exp ?? now + 300,
    iat: now,
    jti: crypto.randomUUID(),
    client_id: 'ci_1',
    space_id: 'space-kit',
    token_kind: 'public',
    customer_id: 'c-7',
    segment_id: 'vip',
    parent_jti: crypto.randomUUID(),
    act: { sub: 'ci_1' },
    ...(extra.jkt ? { cnf: { jkt: extra.jkt } } : {}),
    ...(scope === undefined ? {} : { scope }),
  };
  return signAccessToken(signingKey, claims);
}

const request = (authorization: string, headers: Record<string, string> = {}) => ({
  method: 'POST',
  url: 'https://storefront.example/cart',
  header: (name: string) => ({ authorization, ...headers })[name.toLowerCase()],
});

/** The VerifyError `promise` was refused with. */
async function refusal(promise: Promise<unknown>): Promise<VerifyError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(VerifyError);
  return error as VerifyError;
}

describe("the kit enforces a route's required scopes", () => {
  it('a token holding every required scope passes, with its scope claim', async () => {
    const claims = await kit().verify(request(`Bearer ${token('cart:read cart:write')}`), {
      requiredScopes: ['cart:write'],
    });
    expect(claims.scope).toBe('cart:read cart:write');
  });

  it('a token lacking one is 403 insufficient_scope with RFC 6750 §3.1 challenge', async () => {
    const error = await refusal(
      kit().verify(request(`Bearer ${token('cart:read')}`), { requiredScopes: ['cart:write'] }),
    );
    expect(error.status).toBe(403);
    expect(error.code).toBe('insufficient_scope');
    expect(error.scope).toBe('cart:write');
    expect(error.challenge).toBe(
      'Bearer error="insufficient_scope", scope="cart:write", error_description="the token does not grant the scope cart:write"',
    );
  });

  it('all-of: the challenge names every required scope, the message the ones missing', async () => {
    const error = await refusal(
      kit().verify(request(`Bearer ${token('cart:write')}`), {
        requiredScopes: ['orders:read', 'cart:write', 'orders:write'],
      }),
    );
    expect(error.status).toBe(403);
    expect(error.challenge).toBe(
      'Bearer error="insufficient_scope", scope="cart:write orders:read orders:write", error_description="the token does not grant the scopes orders:read orders:write"',
    );
  });

  it('a token without a scope claim holds no scope; a word is not a prefix of another', async () => {
    const required = { requiredScopes: ['cart:write'] };
    expect((await refusal(kit().verify(request(`Bearer ${token()}`), required))).status).toBe(403);
    const longer = await refusal(kit().verify(request(`Bearer ${token('cart:writer')}`), required));
    expect(longer.status).toBe(403);
    // A route without required scopes takes a token without scopes, as before.
    expect((await kit().verify(request(`Bearer ${token()}`))).scope).toBeUndefined();
  });

  it('an invalid token is 401 whatever its scopes: scopes are checked after the token', async () => {
    const expired = token(undefined, { exp: Math.floor(Date.now() / 1000) - 10 });
    const error = await refusal(
      kit().verify(request(`Bearer ${expired}`), { requiredScopes: ['cart:write'] }),
    );
    expect(error.status).toBe(401);
    expect(error.challenge).toMatch(/^Bearer error="invalid_token"/);
    const missing = await refusal(kit().verify(request(''), { requiredScopes: ['cart:write'] }));
    expect(missing.status).toBe(401);
  });

  it("the verifier's default applies to every route; a route's own list replaces it", async () => {
    const verifier = kit({ requiredScopes: ['cart:read'] });
    expect((await refusal(verifier.verify(request(`Bearer ${token()}`)))).scope).toBe('cart:read');
    await expect(verifier.verify(request(`Bearer ${token('cart:read')}`))).resolves.toBeTruthy();
    await expect(
      verifier.verify(request(`Bearer ${token()}`), { requiredScopes: [] }),
    ).resolves.toBeTruthy();
  });

  it('a DPoP-bound token lacking a scope is challenged in the DPoP scheme (RFC 9449 §7.1)', async () => {
    const holder = await generateKeyPair('ES256');
    const jwk = await exportJWK(holder.publicKey);
    const bound = token('cart:read', { jkt: await calculateJwkThumbprint(jwk) });
    const proof = await new SignJWT({
      htm: 'POST',
      htu: 'https://storefront.example/cart',
      iat: Math.floor(Date.now() / 1000),
      jti: crypto.randomUUID(),
      ath: accessTokenHash(bound),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .sign(holder.privateKey);
    const error = await refusal(
      kit().verify(request(`DPoP ${bound}`, { dpop: proof }), { requiredScopes: ['cart:write'] }),
    );
    expect(error.status).toBe(403);
    expect(error.challenge).toMatch(/^DPoP error="insufficient_scope", scope="cart:write", /);
  });

  it('a required scope no token could carry is refused where it is declared', () => {
    expect(() => kit({ requiredScopes: ['cart write'] })).toThrow(TypeError);
    expect(() =>
      koaVerifier(kit(), { origin: 'https://storefront.example', requiredScopes: ['a"b'] }),
    ).toThrow(TypeError);
  });
});
