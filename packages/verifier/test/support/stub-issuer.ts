import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { createVerifier, type VerifierOptions, type VerifyError } from '../../src/index.js';

/**
 * A token service as the kit sees it, with no service: a fetch stub serving a JWKS and an empty
 * revocation list, and the tokens its key signs.
 */
export const ISSUER = 'https://tokens.test';
export const AUDIENCE = 'storefront.test';
const { privateKey, publicKey } = generateKeyPairSync('ed25519');

/** What the stub's revocation list says; empty unless a test sets it. */
export const revocationList: Record<string, unknown> = { clients: [], tokens: [] };

export const issuerFetch: typeof fetch = (input) => {
  const url = String(input);
  if (url === `${ISSUER}/.well-known/jwks.json`) {
    return Promise.resolve(
      Response.json({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1' }] }),
    );
  }
  if (url.startsWith(`${ISSUER}/v1/revocations?`))
    return Promise.resolve(Response.json(revocationList));
  return Promise.resolve(new Response(null, { status: 404 }));
};

/** A verifier of the stub issuer's tokens. */
export const stubVerifier = (options: Partial<VerifierOptions> = {}) =>
  createVerifier({ issuer: ISSUER, audience: AUDIENCE, fetch: issuerFetch, ...options });

/** A public token for customer c-7 bought by `actors`' last, acted on by the others in order. */
export function publicToken(actors: readonly string[] = ['ci_storefront'], scope?: string) {
  const act = [...actors]
    .reverse()
    .reduce<object | undefined>((inner, sub) => (inner ? { sub, act: inner } : { sub }), undefined);
  return sign({
    token_kind: 'public',
    sub: 'c-7',
    client_id: actors[0],
    customer_id: 'c-7',
    segment_id: 'vip',
    parent_jti: crypto.randomUUID(),
    act,
    ...(scope === undefined ? {} : { scope }),
  });
}

/** A private token of client ci_storefront, with `extra` claims. */
export const privateToken = (extra: Record<string, unknown> = {}) =>
  sign({ token_kind: 'private', sub: 'ci_storefront', client_id: 'ci_storefront', ...extra });

function sign(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT({ ...claims, space_id: 'space-kit', jti: crypto.randomUUID() })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
}

/** A request to the resource server carrying `authorization` (none when undefined). */
export const request = (authorization?: string) => ({
  method: 'POST',
  url: 'https://storefront.example/cart',
  header: (name: string) => (name.toLowerCase() === 'authorization' ? authorization : undefined),
});

/** What `promise` was refused with. */
export const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => error as VerifyError,
  );

/** A JWT of `typ` over exactly `claims`, signed by the stub issuer's key (a SET, say). */
export const signedJwt = (claims: Record<string, unknown>, typ = 'secevent+jwt') =>
  new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', typ, kid: 'k1' }).sign(privateKey);
