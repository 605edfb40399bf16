import { createPrivateKey } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, type VerifiableRequest } from '../../../src/verify/index.js';
import { signAccessToken, type AccessTokenClaims } from '../../../src/crypto/access-tokens.js';
import { openPrivateKey } from '../../../src/crypto/key-encryption.js';
import { loadKeyEncryptionKey } from '../../../src/crypto/key-files.js';
import { retireSigningKey } from '../../../src/commands/signing-key/change-keys.js';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startSecondInstance,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 42, item 2: a resource server configured for space A's own issuer (the kit with A's
 * issuer) accepts A's tokens and refuses every token of B — B's own, and B's key claiming A —
 * and a compromise retirement of B's key leaves A's tokens and JWKS as they were.
 */
const ISSUER = 'http://token-authority.test';
const A = 'space-iso-a';
const B = 'space-iso-b';
const C = 'space-iso-shared';
let service: TestService;

const viaService = (input: RequestInfo | URL, init?: RequestInit) =>
  fetch(String(input).replace(ISSUER, service.baseUrl), init);
const kitFor = (issuer: string) =>
  createVerifier({ issuer, audience: AUDIENCE, kinds: ['private', 'public'], fetch: viaService });
const request = (token: string): VerifiableRequest => ({
  method: 'GET',
  url: 'https://storefront.example/orders',
  header: (name) => (name.toLowerCase() === 'authorization' ? `Bearer ${token}` : undefined),
});
const kids = async (path: string) =>
  ((await (await fetch(`${service.baseUrl}${path}`)).json()) as { keys: { kid: string }[] }).keys
    .map((key) => key.kid)
    .sort();

async function enable(spaceId: string) {
  const response = await service.post('/v1/space/signing-keys', undefined, {
    authorization: `Bearer ${await service.loginToken([spaceId])}`,
    'x-service-space-id': spaceId,
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { issuer: string; jwks_uri: string };
}

async function publicToken(spaceId: string, privateToken: string): Promise<string> {
  const response = await service.post(
    '/v1/issue',
    { customer_id: 'c-1', segment_id: 's-1' },
    { authorization: `Bearer ${privateToken}`, 'x-service-space-id': spaceId },
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** A token signed with a ring's key (an attacker holding it): B's own, or the shared ring's. */
async function signedWithKeyOf(ring: 'B' | 'shared', claims: AccessTokenClaims): Promise<string> {
  const { rows } = await service.database.pool.query<{ kid: string; private_jwk: unknown }>(
    `SELECT kid, private_jwk FROM signing_keys
      WHERE space_id IS NOT DISTINCT FROM $1 AND retired_at IS NULL
      ORDER BY activates_at DESC LIMIT 1`,
    [ring === 'B' ? B : null],
  );
  const kek = await loadKeyEncryptionKey(undefined, service.dataDir);
  const row = rows[0]!;
  const privateKey = createPrivateKey({
    key: openPrivateKey(kek, row.kid, row.private_jwk) as never,
    format: 'jwk',
  });
  return signAccessToken({ kid: row.kid, privateKey }, claims);
}
const signedWithKeyOfB = (claims: AccessTokenClaims) => signedWithKeyOf('B', claims);
const signedWithSharedKey = (claims: AccessTokenClaims) => signedWithKeyOf('shared', claims);

let tokensOfA: string[];
let tokensOfB: string[];
let sharedToken: string;

beforeAll(async () => {
  service = await startTestService({ SIGNING_KEY_REFRESH_MS: '100' });
  const [a, b, c] = [
    await createCredentialVia(service, A),
    await createCredentialVia(service, B),
    await createCredentialVia(service, C),
  ];
  expect((await enable(A)).issuer).toBe(`${ISSUER}/spaces/${A}`);
  expect((await enable(B)).jwks_uri).toBe(`${ISSUER}/spaces/${B}/.well-known/jwks.json`);
  const privateA = await privateTokenVia(service, a);
  const privateB = await privateTokenVia(service, b);
  // /v1/issue verifies the private token with the service's own verifier: per-space issuers pass.
  tokensOfA = [privateA, await publicToken(A, privateA)];
  tokensOfB = [privateB, await publicToken(B, privateB)];
  sharedToken = await privateTokenVia(service, c);
});

describe("a space's own issuer and keys", () => {
  it('signs its tokens with its own ring, names its issuer, and publishes them apart', async () => {
    for (const token of tokensOfA) expect(decodeJwt(token).iss).toBe(`${ISSUER}/spaces/${A}`);
    expect(decodeJwt(sharedToken).iss).toBe(ISSUER);
    const ownA = await kids(`/spaces/${A}/.well-known/jwks.json`);
    const ownB = await kids(`/spaces/${B}/.well-known/jwks.json`);
    const shared = await kids('/.well-known/jwks.json');
    expect(ownA).toEqual([decodeProtectedHeader(tokensOfA[0]!).kid]);
    expect(ownB).toEqual([decodeProtectedHeader(tokensOfB[0]!).kid]);
    expect(shared).not.toContain(ownA[0]);
    expect(shared).not.toContain(ownB[0]);
    expect(shared).toContain(decodeProtectedHeader(sharedToken).kid);
    // RFC 8414 §3.1: the issuer's path after the well-known name.
    const metadata = (await (
      await fetch(`${service.baseUrl}/.well-known/oauth-authorization-server/spaces/${A}`)
    ).json()) as { issuer: string; jwks_uri: string; token_endpoint: string };
    expect(metadata).toMatchObject({
      issuer: `${ISSUER}/spaces/${A}`,
      jwks_uri: `${ISSUER}/spaces/${A}/.well-known/jwks.json`,
      token_endpoint: `${ISSUER}/v1/credential/token`,
    });
    expect((await fetch(`${service.baseUrl}/spaces/${C}/.well-known/jwks.json`)).status).toBe(404);
  });

  it("A's resource server accepts A's tokens and refuses every token of B, and B's key claiming A", async () => {
    const kitA = kitFor(`${ISSUER}/spaces/${A}`);
    for (const token of tokensOfA) {
      await expect(kitA.verify(request(token))).resolves.toMatchObject({ space_id: A });
    }
    const claimsOfB = decodeJwt(tokensOfB[0]!) as unknown as AccessTokenClaims;
    const forged = [
      // B's key, A's space, A's issuer: the key is not in A's JWKS.
      await signedWithKeyOfB({ ...claimsOfB, space_id: A, iss: `${ISSUER}/spaces/${A}` }),
      // B's key, A's space, B's issuer.
      await signedWithKeyOfB({ ...claimsOfB, space_id: A }),
    ];
    for (const token of [...tokensOfB, ...forged, sharedToken]) {
      await expect(kitA.verify(request(token))).rejects.toMatchObject({ status: 401 });
    }
    // The service's own verifier refuses B's key claiming A too (its ring is A's alone).
    const refused = await service.post(
      '/v1/issue',
      { customer_id: 'c-1', segment_id: 's-1' },
      { authorization: `Bearer ${forged[0]}`, 'x-service-space-id': A },
    );
    expect(refused.status).toBe(401);
    // And a kit for the shared issuer takes none of the spaces' own tokens.
    for (const token of [...tokensOfA, ...tokensOfB]) {
      await expect(kitFor(ISSUER).verify(request(token))).rejects.toMatchObject({ status: 401 });
    }
  });

  it("a leaked shared-ring key mints nothing for a space with its own ring; the shared ring's earlier tokens still buy through the transition", async () => {
    // Issue 51, item 1. Space D: a private token from the shared ring, then D turns its ring on.
    const D = 'space-iso-switch';
    const privateOfD = await privateTokenVia(service, await createCredentialVia(service, D));
    await enable(D);
    // Issued before the switch: it buys until it expires, signed now by D's own ring.
    expect(decodeJwt(await publicToken(D, privateOfD)).iss).toBe(`${ISSUER}/spaces/${D}`);
    const now = Math.floor(Date.now() / 1000);
    const claimsOfD = decodeJwt(privateOfD) as unknown as AccessTokenClaims;
    const forged = [
      // The shared issuer, now: what a holder of the shared key would mint for D, or for A.
      await signedWithSharedKey({ ...claimsOfD, iat: now, exp: now + 600 }),
      await signedWithSharedKey({
        ...(decodeJwt(tokensOfA[0]!) as unknown as AccessTokenClaims),
        iss: ISSUER,
        iat: now,
        exp: now + 600,
      }),
      // Backdated to before the switch, but living past the longest lifetime after it.
      await signedWithSharedKey({ ...claimsOfD, iat: claimsOfD.iat - 10, exp: now + 86_400 }),
    ];
    for (const [index, token] of forged.entries()) {
      const spaceId = index === 1 ? A : D;
      const answer = await service.post(
        '/v1/issue',
        { customer_id: 'c-1', segment_id: 's-1' },
        { authorization: `Bearer ${token}`, 'x-service-space-id': spaceId },
      );
      expect(answer.status, `forged token ${index}`).toBe(401);
    }
  });

  it("a space key retired as compromised stops verifying on a quiet worker's first request after it", async () => {
    // Issue 51, item 2: a worker that had verified B's token served its held ring, stale without
    // bound, on its first request after the retirement: 200 three seconds later.
    const E = 'space-iso-quiet';
    await enable(E);
    const tokenOfE = await privateTokenVia(service, await createCredentialVia(service, E, 'own'));
    const quiet = await startSecondInstance(service, { SIGNING_KEY_REFRESH_MS: '100' });
    const buy = (on: TestService) =>
      on.post(
        '/v1/issue',
        { customer_id: 'c-1', segment_id: 's-1' },
        { authorization: `Bearer ${tokenOfE}`, 'x-service-space-id': E },
      );
    expect((await buy(quiet)).status).toBe(200);
    const kek = await loadKeyEncryptionKey(undefined, service.dataDir);
    await retireSigningKey(
      service.api.commands.events,
      decodeProtectedHeader(tokenOfE).kid!,
      { actor: 'operator', origin: 'test', requestId: null },
      kek,
    );
    // Quiet past two refreshes, then the first request: the retired key no longer verifies.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await buy(quiet)).status).toBe(401);
  });

  it("retiring B's key as compromised leaves A's tokens and JWKS untouched", async () => {
    const jwksA = await kids(`/spaces/${A}/.well-known/jwks.json`);
    const keyOfB = decodeProtectedHeader(tokensOfB[0]!).kid!;
    const kek = await loadKeyEncryptionKey(undefined, service.dataDir);
    const retired = await retireSigningKey(
      service.api.commands.events,
      keyOfB,
      { actor: 'operator', origin: 'test', requestId: null },
      kek,
    );
    expect(retired).toMatchObject({ retired: true, replacement: expect.any(String) });
    await expect
      .poll(() => kids(`/spaces/${B}/.well-known/jwks.json`), { interval: 100 })
      .toEqual([retired.replacement]);
    expect(await kids(`/spaces/${A}/.well-known/jwks.json`)).toEqual(jwksA);
    const kitA = kitFor(`${ISSUER}/spaces/${A}`);
    for (const token of tokensOfA) {
      await expect(kitA.verify(request(token))).resolves.toMatchObject({ space_id: A });
    }
    await expect
      .poll(
        async () =>
          (await kitFor(`${ISSUER}/spaces/${B}`)
            .verify(request(tokensOfB[0]!))
            .catch((e: { status: number }) => e)) as { status?: number },
        { interval: 200 },
      )
      .toMatchObject({ status: 401 });
  });
});

describe("the revocation list's key withdrawals", () => {
  it('a long-running kit that verified a key refuses a new token it signs once the key is retired as compromised, within the list refresh and well before the JWKS max-age', async () => {
    // Issue 51, item 2: the kit held the JWKS for its max-age (300 s), so a token a holder of the
    // retired key signed after the retirement still verified.
    const F = 'space-iso-withdrawn';
    await enable(F);
    const tokenOfF = await privateTokenVia(service, await createCredentialVia(service, F));
    const kid = decodeProtectedHeader(tokenOfF).kid!;
    const kit = createVerifier({
      issuer: `${ISSUER}/spaces/${F}`,
      audience: AUDIENCE,
      kinds: ['private', 'public'],
      revocationRefreshSeconds: 0.2,
      fetch: viaService,
    });
    await expect(kit.verify(request(tokenOfF))).resolves.toMatchObject({ space_id: F });
    // F's key naming another space: checked against that space's list, it would evade F's.
    const elsewhere = await signedWithKid(kid, {
      ...(decodeJwt(tokenOfF) as unknown as AccessTokenClaims),
      space_id: A,
    });
    await expect(kit.verify(request(elsewhere))).rejects.toMatchObject({ status: 401 });
    const retired = await retireSigningKey(
      service.api.commands.events,
      kid,
      { actor: 'operator', origin: 'test', requestId: null },
      await loadKeyEncryptionKey(undefined, service.dataDir),
    );
    expect(retired.retired).toBe(true);
    // The list names it once its one-second cache has passed.
    const withdrawn = async () =>
      (
        (await (await fetch(`${service.baseUrl}/v1/revocations?space_id=${F}`)).json()) as {
          withdrawn_keys?: { kid: string }[];
        }
      ).withdrawn_keys?.map((key) => key.kid);
    await expect.poll(withdrawn, { interval: 200, timeout: 3000 }).toEqual([kid]);
    // What a holder of the retired key signs now.
    const now = Math.floor(Date.now() / 1000);
    const forged = await signedWithKid(kid, {
      ...(decodeJwt(tokenOfF) as unknown as AccessTokenClaims),
      jti: 'forged-after-withdrawal',
      iat: now,
      exp: now + 600,
    });
    // The bound: the kit's list refresh (0.2 s here) and the service's 1 s list cache.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expect(kit.verify(request(forged))).rejects.toMatchObject({ status: 401 });
    await expect(kit.verify(request(tokenOfF))).rejects.toMatchObject({ status: 401 });
  });
});

describe("the shared ring's key withdrawals", () => {
  it("are listed for every space, and a kit for the shared issuer refuses the key's tokens within its poll", async () => {
    // Last in this file: it retires the shared ring's signing key (a replacement signs at once).
    const kid = decodeProtectedHeader(sharedToken).kid!;
    const kit = createVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      kinds: ['private', 'public'],
      revocationRefreshSeconds: 0.2,
      fetch: viaService,
    });
    await expect(kit.verify(request(sharedToken))).resolves.toMatchObject({ space_id: C });
    await retireSigningKey(
      service.api.commands.events,
      kid,
      { actor: 'operator', origin: 'test', requestId: null },
      await loadKeyEncryptionKey(undefined, service.dataDir),
    );
    for (const spaceId of [C, A, 'space-iso-none']) {
      await expect
        .poll(
          async () =>
            (
              (await (
                await fetch(`${service.baseUrl}/v1/revocations?space_id=${spaceId}`)
              ).json()) as { withdrawn_keys: { kid: string }[] }
            ).withdrawn_keys.map((key) => key.kid),
          { interval: 200, timeout: 3000 },
        )
        .toContain(kid);
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expect(kit.verify(request(sharedToken))).rejects.toMatchObject({ status: 401 });
  });
});

/** A token signed with the key `kid`, retired or not (an attacker holding it). */
async function signedWithKid(kid: string, claims: AccessTokenClaims): Promise<string> {
  const { rows } = await service.database.pool.query<{ private_jwk: unknown }>(
    'SELECT private_jwk FROM signing_keys WHERE kid = $1',
    [kid],
  );
  const kek = await loadKeyEncryptionKey(undefined, service.dataDir);
  const privateKey = createPrivateKey({
    key: openPrivateKey(kek, kid, rows[0]!.private_jwk) as never,
    format: 'jwk',
  });
  return signAccessToken({ kid, privateKey }, claims);
}
