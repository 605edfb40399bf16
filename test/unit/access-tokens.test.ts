import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createAccessTokenVerifier,
  signAccessToken,
  signAccessTokenWith,
  signatureDigest,
  type PrivateTokenClaims,
} from '../../src/crypto/access-tokens.js';
import { verifyAccessToken } from '../../packages/verifier/src/access-token-check.js';
import type { KeyStore } from '../../src/crypto/key-store.js';

function keyStore(): KeyStore & { privateKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey,
    current: () => ({ kid: 'k1', privateKey }),
    publicKey: (kid) => (kid === 'k1' ? publicKey : undefined),
    jwks: () => ({ keys: [] }),
    refresh: async () => undefined,
    refreshSoon: async () => undefined,
    close: () => undefined,
  };
}

const now = 1_800_000_000;
const claims: PrivateTokenClaims = {
  iss: 'https://issuer.test',
  sub: 'ci_1',
  aud: 'storefront.test',
  exp: now + 60,
  iat: now,
  jti: 'j1',
  client_id: 'ci_1',
  space_id: 's',
  token_kind: 'private',
};
const policy = { issuer: 'https://issuer.test', audiences: ['storefront.test'] };
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('signAccessTokenWith', () => {
  it('signs through signAccessTokenWith exactly what the inline signature signs (Ed25519 is deterministic)', async () => {
    const keys = keyStore();
    const offThread = await signAccessTokenWith(keys.current(), claims);
    expect(offThread).toBe(signAccessToken(keys.current(), claims));
    await expect(verifyAccessToken(offThread, 'private', keys, policy, now)).resolves.toEqual(
      claims,
    );
  });

  it('rejects, never throws synchronously, when the key cannot sign', async () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const signing = signAccessTokenWith({ kid: 'k1', privateKey: publicKey }, claims);
    await expect(signing).rejects.toThrow();
  });
});

describe('verifyAccessToken', () => {
  const keys = keyStore();
  const good = signAccessToken(keys.current(), claims);

  it('accepts a token we signed, of the kind asked for', async () => {
    await expect(verifyAccessToken(good, 'private', keys, policy, now)).resolves.toEqual(claims);
  });

  it.each([
    [
      'the other kind',
      () => verifyAccessToken(good, 'public', keys, policy, now),
      /a private access token cannot be used here/,
    ],
    [
      'an expired token',
      () => verifyAccessToken(good, 'private', keys, policy, now + 60),
      /token has expired/,
    ],
    [
      'another issuer',
      () => verifyAccessToken(good, 'private', keys, { ...policy, issuer: 'https://evil' }, now),
      /"iss"/,
    ],
    [
      'another audience',
      () => verifyAccessToken(good, 'private', keys, { ...policy, audiences: ['x'] }, now),
      /"aud"/,
    ],
    [
      'a tampered payload',
      () => {
        const [h, , s] = good.split('.');
        return verifyAccessToken(
          `${h}.${b64({ ...claims, space_id: 'other' })}.${s}`,
          'private',
          keys,
          policy,
          now,
        );
      },
      /signature is invalid/,
    ],
    [
      'alg none',
      () => {
        // With a well-formed signature segment, so the algorithm check is what refuses it (an
        // empty one is already refused as malformed).
        const [, p, s] = good.split('.');
        return verifyAccessToken(
          `${b64({ alg: 'none', typ: 'at+jwt', kid: 'k1' })}.${p}.${s}`,
          'private',
          keys,
          policy,
          now,
        );
      },
      /algorithm is not accepted/,
    ],
    [
      'a plain JWT typ',
      () => {
        const [, p, s] = good.split('.');
        return verifyAccessToken(
          `${b64({ alg: 'EdDSA', typ: 'JWT', kid: 'k1' })}.${p}.${s}`,
          'private',
          keys,
          policy,
          now,
        );
      },
      /"typ"/,
    ],
    [
      'an unknown kid',
      () =>
        verifyAccessToken(
          signAccessToken({ kid: 'k2', privateKey: keys.privateKey }, claims),
          'private',
          keys,
          policy,
          now,
        ),
      /unknown key/,
    ],
    [
      'another key under our kid',
      () =>
        verifyAccessToken(
          signAccessToken(
            { kid: 'k1', privateKey: generateKeyPairSync('ed25519').privateKey },
            claims,
          ),
          'private',
          keys,
          policy,
          now,
        ),
      /signature is invalid/,
    ],
    ['garbage', () => verifyAccessToken('a.b', 'private', keys, policy, now), /malformed/],
    [
      'claims of another shape',
      () =>
        verifyAccessToken(
          signAccessToken(keys.current(), { ...claims, token_kind: 'login' } as never),
          'private',
          keys,
          policy,
          now,
        ),
      /not an access token of this service/,
    ],
  ])('rejects %s', async (_name, attempt, message) => {
    await expect(attempt()).rejects.toThrow(message);
  });
});

describe('createAccessTokenVerifier', () => {
  it('remembers a verified token but still enforces expiry, kind and key retirement', async () => {
    let clock = now;
    let published = true;
    const base = keyStore();
    const keys: KeyStore = {
      ...base,
      publicKey: (kid) => (published ? base.publicKey(kid) : undefined),
    };
    const verifier = createAccessTokenVerifier(keys, policy, {
      clock: { now: () => clock * 1000 },
    });
    const token = signAccessToken(base.current(), claims);
    await expect(verifier.verify(token, 'private')).resolves.toEqual(claims);
    await expect(verifier.verify(token, 'private')).resolves.toEqual(claims);
    await expect(verifier.verify(token, 'public')).rejects.toThrow(/cannot be used here/);
    clock = now + 60;
    await expect(verifier.verify(token, 'private')).rejects.toThrow(/expired/);
    clock = now;
    published = false;
    await expect(verifier.verify(token, 'private')).rejects.toThrow(/unknown key/);
  });

  it('never remembers a token that failed', async () => {
    const keys = keyStore();
    const verifier = createAccessTokenVerifier(keys, policy, { clock: { now: () => now * 1000 } });
    const [h, , s] = signAccessToken(keys.current(), claims).split('.');
    const forged = `${h}.${b64({ ...claims, client_id: 'ci_2' })}.${s}`;
    await expect(verifier.verify(forged, 'private')).rejects.toThrow(/signature/);
    await expect(verifier.verify(forged, 'private')).rejects.toThrow(/signature/);
  });

  it('accepts one spelling of a token only: no padding, no other alphabet, no stray bits', async () => {
    const store = keyStore();
    const token = signAccessToken(store.current(), claims);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const policy = { issuer: claims.iss, audiences: [claims.aud] };
    await expect(verifyAccessToken(token, 'private', store, policy, now)).resolves.toBeDefined();
    // The last character of a 64-byte Ed25519 signature carries 2 unused bits: flip one.
    const last = signature.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1]!;
    const variants = [
      `${header}.${payload}.${signature}==`,
      `${header}=.${payload}.${signature}`,
      `${header}.${payload}.${signature.replace(/-/g, '+').replace(/_/g, '/')}`,
      `${header}.${payload}.${signature.slice(0, -1)}${sibling}`,
    ].filter((variant) => variant !== token);
    for (const variant of variants) {
      await expect(verifyAccessToken(variant, 'private', store, policy, now)).rejects.toThrow(
        /malformed/,
      );
    }
  });
});

describe('a shared-ring token and its space’s switch-over (memo included)', () => {
  const keys = keyStore();
  const token = signAccessToken(keys.current(), claims);
  const signature = token.slice(token.lastIndexOf('.') + 1);

  it('of a space that never switched: no recorded issuance is asked, first use or memo hit', async () => {
    const asked: unknown[] = [];
    const verifier = createAccessTokenVerifier(
      keys,
      {
        ...policy,
        ringOwnedSince: async () => undefined,
        transitionSeconds: 3600,
        recordedIssuance: async (...args) => (asked.push(args), true),
      },
      { clock: { now: () => now * 1000 } },
    );
    await expect(verifier.verify(token, 'private')).resolves.toEqual(claims);
    await expect(verifier.verify(token, 'private')).resolves.toEqual(claims);
    expect(asked).toEqual([]);
  });

  it('of a switched space: asked by its own space, jti and signature digest, each use; refused once not honoured', async () => {
    const asked: Array<{ space: string; jti: string; digest: Buffer }> = [];
    let honoured = true;
    const verifier = createAccessTokenVerifier(
      keys,
      {
        ...policy,
        ringOwnedSince: async (space) => (space === 's' ? (now + 1) * 1000 : undefined),
        transitionSeconds: 3600,
        recordedIssuance: async (kept, digest) => {
          asked.push({ space: kept.space_id, jti: kept.jti, digest });
          return honoured;
        },
      },
      { clock: { now: () => now * 1000 } },
    );
    await expect(verifier.verify(token, 'private')).resolves.toEqual(claims);
    await expect(verifier.verify(token, 'private')).resolves.toEqual(claims);
    expect(asked).toEqual([
      { space: 's', jti: 'j1', digest: signatureDigest(signature) },
      { space: 's', jti: 'j1', digest: signatureDigest(signature) },
    ]);
    honoured = false;
    await expect(verifier.verify(token, 'private')).rejects.toThrow(/shared issuer/);
  });
});
