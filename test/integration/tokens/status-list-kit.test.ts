import { beforeAll, describe, expect, it } from 'vitest';
import { createVerifier } from '../../../src/verify/index.js';
import { catchUp } from '../../../src/projections/batches.js';
import { statusListEntriesProjection } from '../../../src/projections/status-list-entries.js';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

const SPACE = 'space-status-kit';
const ISSUER = 'http://token-authority.test';
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});

/**
 * The kit with the revocation list it polls held empty: whatever it refuses for revocation, it
 * refused from the token's status list alone. Counts the lists it fetched.
 */
function kitBlindToRevocations(statusLists?: boolean) {
  const fetched: string[] = [];
  const verifier = createVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    kinds: ['private', 'public'],
    ...(statusLists === undefined ? {} : { statusLists }),
    fetch: async (input, init) => {
      const url = String(input);
      if (url.includes('/v1/revocations')) {
        return Response.json({ space_id: SPACE, generated_at: '', clients: [], tokens: [] });
      }
      if (url.includes('/statuslists/')) fetched.push(url);
      return fetch(url.replace(ISSUER, service.baseUrl), init);
    },
  });
  const verify = (token: string) =>
    verifier.verify({
      method: 'GET',
      url: 'https://shop.example/cart',
      header: (name) => (name === 'authorization' ? `Bearer ${token}` : undefined),
    });
  return { verify, fetched };
}

const revoke = async (credential: object, token: string) =>
  expect((await service.post('/v1/revoke', { ...credential, token })).status).toBe(200);

describe("the verifier kit reads a token's status list (issue 65)", () => {
  it('refuses a token its status list marks revoked, fetching each list once within its ttl', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const live = await privateTokenVia(service, credential);
    const revoked = await privateTokenVia(service, credential);
    await revoke(credential, revoked);
    await catchUp(service.database.db, statusListEntriesProjection, 1000);
    const kit = kitBlindToRevocations();
    await expect(kit.verify(live)).resolves.toMatchObject({ client_id: credential.client_id });
    await expect(kit.verify(revoked)).rejects.toMatchObject({
      status: 401,
      message: 'the token has been revoked (its status list)',
    });
    await kit.verify(live);
    // Both tokens are in one list: one fetch for three verifications.
    expect(kit.fetched).toHaveLength(1);
    // Without the status list, the same kit would have taken it: the refusal above is the list's.
    await expect(kitBlindToRevocations(false).verify(revoked)).resolves.toBeDefined();
  });

  it('takes a token whose list has no entry yet (the projector within its bound)', async () => {
    // A space of its own: the token's list has no entry at all yet.
    const credential = await createCredentialVia(service, `${SPACE}-fresh`, 'fresh');
    await catchUp(service.database.db, statusListEntriesProjection, 1000);
    const fresh = await privateTokenVia(service, credential);
    await expect(kitBlindToRevocations().verify(fresh)).resolves.toBeDefined();
  });

  it('judges by the revocation list alone when the status list cannot be fetched', async () => {
    const credential = await createCredentialVia(service, SPACE, 'unreachable');
    const token = await privateTokenVia(service, credential);
    const revoked = await privateTokenVia(service, credential);
    await revoke(credential, revoked);
    const verifier = createVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      kinds: ['private'],
      fetch: async (input, init) => {
        const url = String(input);
        if (url.includes('/statuslists/')) throw new TypeError('fetch failed');
        return fetch(url.replace(ISSUER, service.baseUrl), init);
      },
    });
    const verify = (presented: string) =>
      verifier.verify({
        method: 'GET',
        url: 'https://shop.example/cart',
        header: (name) => (name === 'authorization' ? `Bearer ${presented}` : undefined),
      });
    // The service's projector is away, say: the token still verifies, a revoked one still fails.
    await expect(verify(token)).resolves.toMatchObject({ client_id: credential.client_id });
    await expect(verify(revoked)).rejects.toMatchObject({
      status: 401,
      message: 'the token has been revoked',
    });
  });
});
