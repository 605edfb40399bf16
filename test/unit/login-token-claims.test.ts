import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, importJWK, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createLoginTokenVerifier } from '../../src/crypto/login-tokens.js';
import { InvalidTokenError } from '../../src/errors/errors.js';
import {
  EVERY_PAIR,
  KEY_TYPES,
  forgedJws,
  publicJwkOf,
} from '../../packages/verifier/test/support/forged-jws.js';

// An identity provider's key, given inline as LOGIN_PUBLIC_KEY.
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const publicJwk = { ...publicKey.export({ format: 'jwk' }), alg: 'EdDSA' } as JWK;
const config = loadConfig({
  LOGIN_PUBLIC_KEY: JSON.stringify(publicJwk),
  LOGIN_ISSUER: 'https://idp.example',
});

/** A login token with the claims given; `iat` and `exp` only when asked for. */
async function token(claims: { iat?: number; exp?: number }): Promise<string> {
  const key = await importJWK({ ...privateKey.export({ format: 'jwk' }), alg: 'EdDSA' }, 'EdDSA');
  const jwt = new SignJWT({ spaces: ['shop'] })
    .setProtectedHeader({ alg: 'EdDSA' })
    .setIssuer('https://idp.example')
    .setAudience('token-authority')
    .setSubject('carol');
  if (claims.iat !== undefined) jwt.setIssuedAt(claims.iat);
  if (claims.exp !== undefined) jwt.setExpirationTime(claims.exp);
  return jwt.sign(key);
}

const now = Math.floor(Date.now() / 1000);

describe('a login token without iat or exp (issue 40, item 12)', () => {
  it('is refused as missing the claim, not as an unacceptable one', async () => {
    const verifier = await createLoginTokenVerifier(config);
    await expect(verifier.verify(await token({ exp: now + 600 }))).rejects.toThrow(
      'login token rejected: token claim "iat" is missing',
    );
    await expect(verifier.verify(await token({ iat: now }))).rejects.toThrow(
      'login token rejected: token claim "exp" is missing',
    );
  });

  it('with both it verifies, and an iat past LOGIN_TOKEN_MAX_AGE_SECONDS has expired', async () => {
    const verifier = await createLoginTokenVerifier(config);
    await expect(
      verifier.verify(await token({ iat: now - 86_400, exp: now + 600 })),
    ).rejects.toThrow('token has expired');
    expect((await verifier.verify(await token({ iat: now, exp: now + 600 }))).spaces).toEqual([
      'shop',
    ]);
  });
});

describe('every alg against every key type an identity provider may publish', () => {
  it.each(EVERY_PAIR)('%s naming its %s key is a refused login token', async (alg, type) => {
    const keys = await Promise.all(KEY_TYPES.map((each) => publicJwkOf(each)));
    const verifier = await createLoginTokenVerifier(
      loadConfig({
        LOGIN_PUBLIC_KEY: JSON.stringify({ keys }),
        LOGIN_ISSUER: 'https://idp.example',
      }),
    );
    const claims = {
      iss: 'https://idp.example',
      aud: 'token-authority',
      sub: 'm',
      iat: now,
      exp: now + 60,
      spaces: ['shop'],
    };
    const refused = await verifier
      .verify(await forgedJws(alg, { kid: type }, claims))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidTokenError);
    expect((refused as Error).message).toMatch(
      /^login token rejected: token (signature|algorithm) /,
    );
  });
});
