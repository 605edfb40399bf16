import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyAccessToken } from '../src/access-token-check.js';
import { checkDpopProof } from '../src/dpop.js';
import { TokenRefusal, joseRefusal } from '../src/refusal.js';
import { publicKeysOf } from '../src/remote-keys.js';
import { ALGS, EVERY_PAIR, KEY_TYPES, forgedJws, publicJwkOf } from './support/forged-jws.js';

/**
 * The kit's two JWS checks under every alg × key type: a TokenRefusal with its OAuth error, never
 * another error (which a resource server would answer 500).
 */
const NOW = 1_800_000_000;
const ISSUER = 'https://tokens.example';
const refusalOf = (check: Promise<unknown>) =>
  check.then(
    () => 'accepted',
    (error: unknown) => error,
  );

describe('DPoP proofs: every alg with every key type in its jwk header', () => {
  it.each([...EVERY_PAIR, ...ALGS.map((alg) => [alg, 'oct'] as const)])(
    '%s with a %s jwk is invalid_dpop_proof',
    async (alg, type) => {
      const { kid: _kid, ...jwk } = await publicJwkOf(type);
      const url = `${ISSUER}/v1/credential/token`;
      const claims = { htm: 'POST', htu: url, iat: NOW, jti: `j-${alg}-${type}` };
      const proof = await forgedJws(alg, { typ: 'dpop+jwt', jwk }, claims);
      const refused = await refusalOf(
        checkDpopProof(proof, { method: 'POST', url, nowMs: NOW * 1000 }),
      );
      expect(refused).toBeInstanceOf(TokenRefusal);
      expect((refused as TokenRefusal).code).toBe('invalid_dpop_proof');
    },
  );
});

describe("access tokens: every alg naming a key of each type in the issuer's JWKS", () => {
  it.each(EVERY_PAIR)('%s naming a %s key is invalid_token', async (alg, type) => {
    const keys = publicKeysOf({ keys: await Promise.all(KEY_TYPES.map((t) => publicJwkOf(t))) });
    const claims = {
      iss: ISSUER,
      sub: 'c',
      aud: 'api',
      iat: NOW,
      exp: NOW + 60,
      jti: 'j',
      client_id: 'c',
      space_id: 's',
      token_kind: 'private',
    };
    const token = await forgedJws(alg, { kid: type, typ: 'at+jwt' }, claims);
    const policy = { issuer: ISSUER, audiences: ['api'] };
    const refused = await refusalOf(verifyAccessToken(token, 'any', keys, policy, NOW));
    expect(refused).toBeInstanceOf(TokenRefusal);
    expect((refused as TokenRefusal).code).toBe('invalid_token');
  });

  it('an EdDSA token naming a key of another type is refused as signed by an unknown key', async () => {
    // Node's verify throws for an X25519 key rather than answering false.
    const { publicKey } = generateKeyPairSync('x25519');
    const keys = { publicKey: () => publicKey, refreshSoon: () => Promise.resolve() };
    const token = await forgedJws('EdDSA', { kid: 'x', typ: 'at+jwt' }, { iss: ISSUER });
    const policy = { issuer: ISSUER, audiences: ['api'] };
    await expect(verifyAccessToken(token, 'any', keys, policy, NOW)).rejects.toThrow(
      'token is signed by an unknown key',
    );
  });
});

describe('joseRefusal, the one reading of a failed jwtVerify', () => {
  it('reads a WebCrypto key/alg mismatch as a signature that does not verify', () => {
    const mismatch = new DOMException(
      'JWK "crv" does not match the requested algorithm',
      'DataError',
    );
    expect(joseRefusal(mismatch)).toMatchObject({ claim: 'signature' });
    expect(
      joseRefusal(new TypeError('KeyObject instances must be of type "secret"')),
    ).toMatchObject({ claim: 'signature' });
    // What is no JWS's is not read as a refusal: it is rethrown.
    expect(joseRefusal(new Error('connect ECONNREFUSED'))).toBeUndefined();
  });
});
