import { decodeJwt } from 'jose';
import { Kysely, PostgresDialect } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken, type AccessTokenClaims } from '../../../src/crypto/access-tokens.js';
import { loadKeyEncryptionKey } from '../../../src/crypto/key-files.js';
import { openSpaceKeyStore } from '../../../src/crypto/space-keys.js';
import type { Database } from '../../../src/db/schema.js';
import { generateKeyPairSync } from 'node:crypto';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 51, item 8: under SPACE_SIGNING_KEYS=all, a space id nobody made — in a JWKS path, or as
 * an unsigned token's `iss` — read the database for a ring, evicted real rings from the bounded
 * cache, and got a 200 JWKS. A space has an issuer of its own only once it has a key.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService({ SPACE_SIGNING_KEYS: 'all' });
});

describe('SPACE_SIGNING_KEYS=all and space ids nobody made', () => {
  it("answers 404 for a made-up space's JWKS and metadata, 200 once the space has issued", async () => {
    for (const path of [
      '/spaces/space-nobody-made/.well-known/jwks.json',
      '/.well-known/oauth-authorization-server/spaces/space-nobody-made',
    ]) {
      expect((await fetch(`${service.baseUrl}${path}`)).status, path).toBe(404);
    }
    const credential = await createCredentialVia(service, 'space-made');
    const token = await privateTokenVia(service, credential);
    expect(decodeJwt(token).iss).toBe('http://token-authority.test/spaces/space-made');
    const jwks = await fetch(`${service.baseUrl}/spaces/space-made/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    expect(((await jwks.json()) as { keys: unknown[] }).keys).toHaveLength(1);
  });

  it('refuses a token that names a made-up space and its issuer', async () => {
    // A real token's claims, moved to a space nobody made and signed with a key nobody holds.
    const credential = await createCredentialVia(service, 'space-made-2');
    const claims = decodeJwt(await privateTokenVia(service, credential)) as AccessTokenClaims;
    const { privateKey } = generateKeyPairSync('ed25519');
    const forged = signAccessToken(
      { kid: 'made-up', privateKey },
      {
        ...claims,
        space_id: 'space-forged',
        iss: 'http://token-authority.test/spaces/space-forged',
      },
    );
    const answer = await service.post(
      '/v1/issue',
      { customer_id: 'c-1', segment_id: 's-1' },
      { authorization: `Bearer ${forged}`, 'x-service-space-id': 'space-forged' },
    );
    expect(answer.status).toBe(401);
  });

  it('costs the database one read of the spaces with keys a second, however many made-up ids are asked', async () => {
    const reads: string[] = [];
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: service.database.pool }),
      log: (event) => {
        if (event.level === 'query' && /signing_keys/.test(event.query.sql)) {
          reads.push(event.query.sql);
        }
      },
    });
    let clock = Date.now();
    const store = await openSpaceKeyStore(db, {
      mode: 'all',
      kek: await loadKeyEncryptionKey(undefined, service.dataDir),
      refreshMs: 60_000,
      maxSpaces: 10,
      now: () => clock,
      sleep: async (ms) => void (clock += ms),
    });
    try {
      expect(reads).toHaveLength(1); // the set, read at open
      clock += 1000;
      const asked = await Promise.all(
        Array.from({ length: 200 }, (_, i) => store.hasKeys(`space-made-up-${i}`)),
      );
      expect(asked.every((has) => !has)).toBe(true);
      expect(reads).toHaveLength(2); // one re-read for all 200 misses
      // Asked one after another, each waits for the next second's read.
      const before = clock;
      for (let i = 0; i < 5; i += 1) await store.hasKeys(`space-made-up-again-${i}`);
      expect(reads).toHaveLength(7);
      expect(clock - before).toBe(5000);
      expect(await store.ownedSince('space-made-up-0')).toBeUndefined();
      expect(reads).toHaveLength(7);
      // A space that has keys is found, and its ring read once.
      expect(await store.hasKeys('space-made')).toBe(true);
      expect((await store.ring('space-made')).jwks().keys).toHaveLength(1);
      expect(reads).toHaveLength(8);
    } finally {
      store.close();
    }
  });

  it('finds a space whose keys another process turned on a moment ago, within the second after a miss', async () => {
    let clock = Date.now();
    const store = await openSpaceKeyStore(service.database.db, {
      mode: 'all',
      kek: await loadKeyEncryptionKey(undefined, service.dataDir),
      refreshMs: 60_000,
      maxSpaces: 10,
      now: () => clock,
      sleep: async (ms) => void (clock += ms),
    });
    try {
      expect(await store.hasKeys('space-turned-on-later')).toBe(false); // a miss: a read now
      // Another process (the service) makes the space's first key and signs with it.
      const credential = await createCredentialVia(service, 'space-turned-on-later');
      const token = await privateTokenVia(service, credential);
      expect(decodeJwt(token).iss).toBe('http://token-authority.test/spaces/space-turned-on-later');
      // Within the same second: before, the miss's read was spent and the token's issuer refused.
      const asked = clock;
      expect(await store.hasKeys('space-turned-on-later')).toBe(true);
      expect(clock - asked).toBeLessThanOrEqual(1000);
    } finally {
      store.close();
    }
  });
});
