import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { issuerSettings } from '../../../src/config/issuer-settings.js';
import { checkAssertion } from '../../../src/commands/trusted-issuer/assertion-check.js';
import { createGuardedFetcher } from '#outbound/guarded-fetcher.js';
import { createIssuerKeys } from '../../../src/commands/trusted-issuer/issuer-keys.js';
import type { TrustedIssuerPorts } from '../../../src/commands/trusted-issuer/ports.js';
import type { TrustedIssuerState } from '../../../src/domain/trusted-issuer/decide.js';

/** checkAssertion with the settings' defaults: the claims jose does not judge, each named. */
const OURS = 'https://tokens.example';
const ISS = 'https://token.actions.githubusercontent.com';
const NOW = 1_800_000_000;
let sign: (claims: JWTPayload) => Promise<string>;
let ports: TrustedIssuerPorts;
let issuer: TrustedIssuerState;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  issuer = {
    issuerId: 'tis_1',
    spaceId: 'space-a',
    removed: false,
    definition: {
      iss: ISS,
      jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1' } as never] },
      audience: OURS,
      rules: [{ id: 'main', claims: { repository: 'shop/storefront' }, client_id: 'c1' }],
    },
  };
  sign = (claims) =>
    new SignJWT({
      iss: ISS,
      aud: OURS,
      sub: 'repo:shop/storefront:ref:refs/heads/main',
      repository: 'shop/storefront',
      jti: 'j1',
      iat: NOW,
      exp: NOW + 60,
      ...claims,
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .sign(privateKey);
  ports = {
    find: async (spaceId, iss) => (spaceId === 'space-a' && iss === ISS ? issuer : undefined),
    keys: createIssuerKeys({
      fetcher: createGuardedFetcher({
        rules: { production: false, allowHttpHosts: [], ownPorts: [] },
        timeoutMs: 5000,
        maxInFlight: 10,
        maxInFlightPerScope: 10,
      }),
      timeoutMs: 5000,
      maxEntries: 10,
      now: () => NOW * 1000,
    }),
    maxLifetimeSeconds: issuerSettings.JWT_BEARER_MAX_LIFETIME_SECONDS.parse(undefined),
    clockSkewSeconds: issuerSettings.JWT_BEARER_CLOCK_SKEW_SECONDS.parse(undefined),
    lifetimeCeiling: issuerSettings.JWT_BEARER_MAX_LIFETIME_CEILING_SECONDS.parse(undefined),
  };
});

const refusal = async (claims: JWTPayload) =>
  checkAssertion(ports, 'space-a', await sign(claims), NOW * 1000).then(
    () => 'accepted',
    (error: Error) => error.message,
  );

describe('a trusted issuer assertion, by default', () => {
  it('lives at most 5 minutes past iat', async () => {
    expect(ports.maxLifetimeSeconds).toBe(300);
    expect(await refusal({ exp: NOW + 300 })).toBe('accepted');
    expect(await refusal({ exp: NOW + 301 })).toMatch(/^exp: more than 300 s past iat/);
  });

  it("lives as long as its issuer's max_lifetime_seconds says instead, held to the ceiling", async () => {
    const own = (seconds: number) => {
      const definition = { ...issuer.definition, max_lifetime_seconds: seconds };
      return { ...ports, find: async () => ({ ...issuer, definition }) };
    };
    const judged = async (at: TrustedIssuerPorts, exp: number) =>
      checkAssertion(at, 'space-a', await sign({ exp }), NOW * 1000).then(
        () => 'accepted',
        (error: Error) => error.message,
      );
    expect(await judged(own(600), NOW + 600)).toBe('accepted');
    expect(await judged(own(600), NOW + 601)).toMatch(/^exp: more than 600 s/);
    // Set before the ceiling was lowered: the ceiling holds.
    expect(await judged({ ...own(900), lifetimeCeiling: 600 }, NOW + 900)).toMatch(
      /^exp: more than 600 s/,
    );
  });

  it('is refused before its nbf or with an iat ahead, beyond the 30 s skew', async () => {
    expect(await refusal({ nbf: NOW + 31 })).toMatch(/^nbf: /);
    expect(await refusal({ iat: NOW + 31, exp: NOW + 90 })).toMatch(/^iat: /);
    expect(await refusal({ nbf: NOW + 29 })).toBe('accepted');
  });

  it('needs a jti and an exp', async () => {
    expect(await refusal({ jti: undefined })).toMatch(/^jti: /);
    expect(await refusal({ exp: undefined })).toMatch(/^exp: /);
  });

  it('is not known in another space', async () => {
    const token = await sign({});
    await expect(checkAssertion(ports, 'space-b', token, NOW * 1000)).rejects.toThrow(/^iss: /);
  });
});
