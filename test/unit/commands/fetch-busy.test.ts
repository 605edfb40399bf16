import { generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { FetchBusyError, type GuardedFetcher } from '#outbound/guarded-fetcher.js';
import { fetchJwks } from '#outbound/jwks-fetch.js';
import { authenticateMetadataClient } from '../../../src/commands/client-authentication/metadata-client.js';
import { checkAssertion } from '../../../src/commands/trusted-issuer/assertion-check.js';
import { createIssuerKeys } from '../../../src/commands/trusted-issuer/issuer-keys.js';
import { UnavailableError } from '../../../src/errors/errors.js';

/**
 * A fetch refused `busy` is the process's bound (other spaces' slow peers may fill it), not the
 * caller's doing: answered 503, never a refusal that spends the caller's failure budget (a client
 * retrying as told would lock itself out).
 */
const busyFetcher: GuardedFetcher = {
  getJson: () => Promise.reject(new FetchBusyError('busy: too many fetches in flight')),
  inFlight: () => 100,
};

describe('an outbound fetch refused busy', () => {
  it("answers a jwt-bearer assertion 503, not as the issuer's refusal", async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const now = Date.now();
    const assertion = await new SignJWT({ sub: 'someone', jti: 'j1', aud: 'a' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer('https://idp.example')
      .setIssuedAt()
      .setExpirationTime('2m')
      .sign(privateKey);
    const issuer = {
      issuerId: 'tis_1',
      spaceId: 'space-a',
      removed: false,
      definition: {
        iss: 'https://idp.example',
        jwks_uri: 'https://idp.example/jwks',
        audience: 'a',
        rules: [],
      },
    };
    const ports = {
      find: async () => issuer,
      keys: createIssuerKeys({
        fetcher: busyFetcher,
        timeoutMs: 1000,
        maxEntries: 10,
        now: () => now,
      }),
      maxLifetimeSeconds: 300,
      lifetimeCeiling: 3600,
      clockSkewSeconds: 30,
    };
    await expect(checkAssertion(ports as never, 'space-a', assertion, now)).rejects.toBeInstanceOf(
      UnavailableError,
    );
  });

  it('answers a metadata client 503 and spends none of its failed-authentication budget', async () => {
    for (const failure of [
      () => busyFetcher.getJson('https://client.example/c', { scope: 's', maxBytes: 1 }),
      () => fetchJwks(busyFetcher, 'https://client.example/jwks', { scope: 's' }),
    ]) {
      const failed: string[] = [];
      const ctx = {
        limits: {
          assertClientNotLockedOut: () => undefined,
          clientLockedOut: () => false,
          failedClientAuthentication: (clientId: string) => void failed.push(clientId),
        },
        metadataClients: {
          domain: async () => ({ scopes: null }),
          documents: { clientAt: failure },
          seen: new Set<string>(),
        },
      };
      const asked = authenticateMetadataClient(
        ctx as never,
        {
          spaceId: 'space-a',
          clientId: 'https://client.example/c',
          assertion: 'x.y.z',
          metadata: { client_ip: '192.0.2.1' } as never,
        },
        (reason) => new Error(reason),
      );
      await expect(asked).rejects.toBeInstanceOf(UnavailableError);
      expect(failed).toEqual([]);
    }
  });
});
