import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { issuerSettings } from '../../../src/config/issuer-settings.js';
import {
  AssertionRefused,
  checkAssertion,
} from '../../../src/commands/trusted-issuer/assertion-check.js';
import {
  EVERY_PAIR,
  KEY_TYPES,
  forgedJws,
  publicJwkOf,
} from '../../../packages/verifier/test/support/forged-jws.js';
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

  it('an unknown issuer and a bad signature answer alike; the recorded claim tells them apart', async () => {
    const token = await sign({});
    const unknown = await checkAssertion(ports, 'space-b', token, NOW * 1000).catch(
      (error: AssertionRefused) => error,
    );
    const [header, payload] = token.split('.');
    const forged = await checkAssertion(
      ports,
      'space-a',
      `${header}.${payload}.${'A'.repeat(86)}`,
      NOW * 1000,
    ).catch((error: AssertionRefused) => error);
    expect(unknown).toBeInstanceOf(AssertionRefused);
    expect(forged).toBeInstanceOf(AssertionRefused);
    expect((unknown as AssertionRefused).message).toBe((forged as AssertionRefused).message);
    expect([(unknown as AssertionRefused).claim, (forged as AssertionRefused).claim]).toEqual([
      'iss',
      'signature',
    ]);
    // A refused alg is answered alike too, trusted issuer or not.
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    const noneAnswers = await Promise.all(
      ['space-a', 'space-b'].map((space) =>
        checkAssertion(ports, space, none, NOW * 1000).catch((error: Error) => error.message),
      ),
    );
    expect(noneAnswers[0]).toMatch(/^alg: /);
    expect(noneAnswers[1]).toBe(noneAnswers[0]);
  });
});

describe('as client authentication (rfc7523bis)', () => {
  const asClientAuthentication = async (aud: string | string[], audience = OURS) => {
    const definition = { ...issuer.definition, audience };
    const at = { ...ports, find: async () => ({ ...issuer, definition }) };
    return checkAssertion(at, 'space-a', await sign({ aud }), NOW * 1000, OURS).then(
      () => 'accepted',
      (error: Error) => error.message,
    );
  };

  it('takes aud = our issuer as one string, as private_key_jwt does', async () => {
    expect(await asClientAuthentication(OURS)).toBe('accepted');
    expect(await asClientAuthentication([OURS])).toMatch(/^aud: must be .* one string/);
    expect(await asClientAuthentication(`${OURS}/v1/credential/token`)).toMatch(/^aud: /);
    // The issuer's audience set to the token endpoint: the rule is still our issuer alone.
    const endpoint = `${OURS}/v1/credential/token`;
    expect(await asClientAuthentication(endpoint, endpoint)).toMatch(/^aud: /);
  });

  it('while the jwt-bearer grant takes a list of one (Kubernetes, SPIRE)', async () => {
    expect(await refusal({ aud: [OURS] })).toBe('accepted');
  });
});

describe('every alg against every key type an issuer may publish', () => {
  it.each(EVERY_PAIR)(
    '%s naming its %s key: an AssertionRefused, never a thrown error',
    async (alg, type) => {
      const keys = await Promise.all(KEY_TYPES.map((each) => publicJwkOf(each)));
      const definition = { ...issuer.definition, jwks: { keys: keys as never } };
      const at = { ...ports, find: async () => ({ ...issuer, definition }) };
      const claims = {
        iss: ISS,
        aud: OURS,
        sub: 's',
        repository: 'shop/storefront',
        jti: 'j',
        iat: NOW,
        exp: NOW + 60,
      };
      const refused = await checkAssertion(
        at,
        'space-a',
        await forgedJws(alg, { kid: type }, claims),
        NOW * 1000,
      ).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AssertionRefused);
      expect((refused as AssertionRefused).message).toMatch(/^(signature|alg): /);
      expect((refused as AssertionRefused).clientId).toBe('c1');
    },
  );
});
