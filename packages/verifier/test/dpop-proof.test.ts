import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { checkDpopProof } from '../src/dpop.js';
import { createReplayCache } from '../src/replay-cache.js';

const URL_OF_SERVICE = 'https://tokens.example/v1/credential/token';
const NOW_MS = 1_800_000_000_500;
const now = Math.floor(NOW_MS / 1000);

async function proof(
  claims: Record<string, unknown>,
  key?: { privateKey: CryptoKey | KeyObject; jwk: JWK; alg: string },
) {
  const signer = key ?? (await es256());
  return new SignJWT({ htm: 'POST', htu: URL_OF_SERVICE, iat: now, jti: 'j-1', ...claims })
    .setProtectedHeader({ alg: signer.alg, typ: 'dpop+jwt', jwk: signer.jwk })
    .sign(signer.privateKey);
}

async function es256() {
  const pair = await generateKeyPair('ES256');
  return { privateKey: pair.privateKey, jwk: await exportJWK(pair.publicKey), alg: 'ES256' };
}

const check = (value: string) =>
  checkDpopProof(value, { method: 'POST', url: URL_OF_SERVICE, nowMs: NOW_MS });

describe('DPoP proof checks', () => {
  it('a proof for the configured URL passes; one for another origin is refused', async () => {
    await expect(check(await proof({}))).resolves.toMatchObject({ jti: 'j-1' });
    await expect(
      check(await proof({ htu: 'http://other-deployment.example/v1/credential/token' })),
    ).rejects.toThrow(/htu must be https:\/\/tokens\.example\/v1\/credential\/token/);
  });

  it('claims are checked before the signature: a forged proof with a wrong htu is refused for its htu', async () => {
    const good = await proof({ htu: 'https://elsewhere.example/x' });
    const [header, payload] = good.split('.');
    await expect(check(`${header}.${payload}.AAAA`)).rejects.toThrow(/htu/);
    const stale = await proof({ iat: now - 3600 });
    await expect(check(`${stale.split('.').slice(0, 2).join('.')}.AAAA`)).rejects.toThrow(/iat/);
  });

  it('an oversized proof is refused before it is decoded', async () => {
    await expect(check('a'.repeat(5000))).rejects.toThrow(/longer than 4096/);
  });

  it('RSA keys: 2048-4096-bit modulus and exponent 65537 only, refused before any signature check', async () => {
    const rsa = (bits: number) => {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
      return { privateKey, jwk: publicKey.export({ format: 'jwk' }) as JWK, alg: 'RS256' };
    };
    await expect(check(await proof({}, rsa(2048)))).resolves.toBeDefined();
    // jose will not sign with a 1024-bit key; a hostile client signs by hand.
    const small = rsa(1024);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const input = `${part({ alg: 'RS256', typ: 'dpop+jwt', jwk: small.jwk })}.${part({ htm: 'POST', htu: URL_OF_SERVICE, iat: now, jti: 'j-2' })}`;
    const byHand = `${input}.${sign('sha256', Buffer.from(input), small.privateKey).toString('base64url')}`;
    await expect(check(byHand)).rejects.toThrow(/2048-4096-bit modulus/);
    // The reproduction: a 3072-bit modulus and a 3064-bit exponent cost milliseconds to verify.
    const big = rsa(3072);
    const exponent = Buffer.alloc(383, 0xff).toString('base64url');
    const hostile = await proof({}, { ...big, jwk: { ...big.jwk, e: exponent } });
    const started = process.hrtime.bigint();
    await expect(check(hostile)).rejects.toThrow(/exponent 65537/);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(50);
  });

  it('its jti is held until the end of the last second it is accepted in', async () => {
    const checked = await check(await proof({}));
    // Accepted while floor(now) <= iat + 60, so through (iat + 61) * 1000 - 1 ms.
    const lastAcceptedMs = (now + 61) * 1000 - 1;
    await expect(
      checkDpopProof(await proof({}), {
        method: 'POST',
        url: URL_OF_SERVICE,
        nowMs: lastAcceptedMs,
      }),
    ).resolves.toBeDefined();
    expect(checked.expiresAt.getTime()).toBeGreaterThan(lastAcceptedMs);
  });
});

describe('the kit replay cache', () => {
  it('refuses a replay in the last second of the acceptance window', () => {
    const cache = createReplayCache();
    const iat = 1_800_000_000;
    const expiresAtMs = (iat + 61) * 1000;
    const lastSecond = (iat + 60) * 1000 + 500;
    expect(cache.firstUse('p', expiresAtMs, iat * 1000)).toBe('first');
    expect(cache.firstUse('p', expiresAtMs, lastSecond)).toBe('replay');
    expect(cache.firstUse('p', expiresAtMs, lastSecond + 400)).toBe('replay');
  });

  it('when full of unexpired ids it answers full instead of forgetting one', () => {
    const cache = createReplayCache(3);
    for (const id of ['a', 'b', 'c']) expect(cache.firstUse(id, 10_000, 0)).toBe('first');
    expect(cache.firstUse('d', 10_000, 1)).toBe('full');
    expect(cache.firstUse('a', 10_000, 2)).toBe('replay');
    // Once they have expired (plus the skew) their slots are free again.
    expect(cache.firstUse('d', 30_000, 20_000)).toBe('first');
    expect(cache.size()).toBe(1);
  });
});
