import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  changeKeys,
  ensureFirstSigningKey,
  rotateSigningKey,
} from '../../../src/commands/signing-key/change-keys.js';
import { decideFirstKey } from '../../../src/domain/signing-key/decide.js';
import { rotateDueSigningKeys } from '../../../src/commands/signing-key/scheduled-rotation.js';
import { rewrapSigningKeys, sealKeysInTheClear } from '../../../src/commands/signing-key/reseal.js';
import { SERVICE_ACTOR } from '../../../src/commands/signing-key/actor.js';
import { ConfigError } from '../../../src/config/config.js';
import { keyEncryptionKey } from '../../../src/crypto/key-encryption.js';
import { loadKeyEncryptionKey } from '../../../src/crypto/key-files.js';
import { openKeyStore, type HsmSigningKey } from '../../../src/crypto/key-store.js';
import { openPkcs11Signer } from '../../../src/crypto/pkcs11-signer.js';
import {
  createTestToken,
  SOFTHSM_MODULE,
  tokenObjectCount,
  type TestToken,
} from '../../support/softhsm.js';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import { waitUntil } from '../../support/wait.js';

let token: TestToken;
// A second token beside it, made before the library starts (it reads its tokens once).
let other: TestToken;
let service: TestService;
beforeAll(async () => {
  token = await createTestToken('ta-service-keys');
  other = await createTestToken('ta-other-token', token);
  const pinFile = path.join(path.dirname(token.conf), 'user-pin');
  await writeFile(pinFile, token.pin, { mode: 0o600 });
  service = await startTestService({
    SIGNING_BACKEND: 'pkcs11',
    PKCS11_TOKEN_LABEL: token.label,
    PKCS11_PIN: `file:${pinFile}`,
    SIGNING_KEY_REFRESH_MS: '100',
  });
});
afterAll(() => token?.remove());

const storedKeys = async () =>
  (
    await service.database.pool.query<{ kid: string; private_jwk: unknown; public_jwk: unknown }>(
      'SELECT kid, private_jwk, public_jwk FROM signing_keys ORDER BY activates_at',
    )
  ).rows;

async function verifiedKid(jwt: string): Promise<string> {
  const jwks = createRemoteJWKSet(new URL(`${service.baseUrl}/.well-known/jwks.json`));
  const { protectedHeader } = await jwtVerify(jwt, jwks, {
    issuer: 'http://token-authority.test',
    audience: AUDIENCE,
    typ: 'at+jwt',
  });
  return protectedHeader.kid!;
}

describe('SIGNING_BACKEND=pkcs11: the service signs in the token', () => {
  it('makes its first key inside the token, keeps no key material, and its tokens verify against the JWKS', async () => {
    const [first, ...others] = await storedKeys();
    expect(others).toEqual([]);
    expect(first!.private_jwk).toEqual({ hsm: 'pkcs11', token: token.label });
    expect(JSON.stringify(first)).not.toMatch(/"d"/);
    const credential = await createCredentialVia(service, 'space-hsm');
    const jwt = await privateTokenVia(service, credential);
    expect(await verifiedKid(jwt)).toBe(first!.kid);
  });

  it('rotates to a new key made in the token, and the old key still verifies its tokens', async () => {
    const credential = await createCredentialVia(service, 'space-hsm-rotation');
    const before = await privateTokenVia(service, credential);
    const current = service.api.commands.keys.current() as HsmSigningKey;
    expect(current.privateKey).toBeUndefined();
    const rotated = await rotateSigningKey(service.api.commands.events, {
      kek: await loadKeyEncryptionKey(undefined, service.dataDir),
      signer: current.signer,
      activateInSeconds: 0,
      retireAfterSeconds: 3600,
    });
    const after = await waitUntil(
      () => privateTokenVia(service, credential),
      (jwt) => decodeProtectedHeader(jwt).kid === rotated.kid,
      { intervalMs: 100 },
    );
    expect(await verifiedKid(after)).toBe(rotated.kid);
    expect(await verifiedKid(before)).toBe(decodeProtectedHeader(before).kid);
    for (const row of await storedKeys()) {
      expect(row.private_jwk).toEqual({ hsm: 'pkcs11', token: token.label });
    }
  });

  it('leaves a key in the token alone when keys are sealed or rewrapped', async () => {
    const kek = await loadKeyEncryptionKey(undefined, service.dataDir);
    const events = service.api.commands.events;
    expect(await sealKeysInTheClear(events, kek, SERVICE_ACTOR)).toEqual([]);
    const next = keyEncryptionKey(Buffer.alloc(32, 7));
    expect(await rewrapSigningKeys(events, kek, next, SERVICE_ACTOR)).toEqual([]);
    for (const row of await storedKeys()) {
      expect(row.private_jwk).toEqual({ hsm: 'pkcs11', token: token.label });
    }
  });

  it('a process whose token lacks the published keys refuses to start, naming PKCS11_TOKEN_LABEL', async () => {
    const signer = await openPkcs11Signer({
      module: SOFTHSM_MODULE,
      tokenLabel: other.label,
      pin: other.pin,
      maxKeys: 10,
    });
    try {
      const kek = await loadKeyEncryptionKey(undefined, service.dataDir);
      const opened = openKeyStore(service.database.db, { kek, signer });
      await expect(opened).rejects.toBeInstanceOf(ConfigError);
      await expect(opened).rejects.toThrow(/PKCS11_TOKEN_LABEL: the token holds no key /);
    } finally {
      await signer.close();
    }
    // The service's own signer still signs: closing another signer ended only its session.
    const credential = await createCredentialVia(service, 'space-hsm-after');
    expect(await verifiedKid(await privateTokenVia(service, credential))).toBeDefined();
  });

  it('a process configured for local keys refuses to start on keys in a token, naming SIGNING_BACKEND', async () => {
    const kek = await loadKeyEncryptionKey(undefined, service.dataDir);
    const opened = openKeyStore(service.database.db, { kek });
    await expect(opened).rejects.toBeInstanceOf(ConfigError);
    await expect(opened).rejects.toThrow(
      /SIGNING_BACKEND: signing key .* lives in a PKCS#11 token/,
    );
  });

  // Issue 51, item 3: a key was generated before the decision knew it needed one, so every
  // "nothing to do" left a key pair in the token (20 enables: 40 objects).
  it('leaves no key in the token for a change that needs none: 20 enables, starts and due rotations by 3 replicas', async () => {
    const events = service.api.commands.events;
    const signer = service.api.commands.spaceKeys!.maker;
    const kek = await loadKeyEncryptionKey(undefined, service.dataDir);
    const enable = async (spaceId: string) => {
      const response = await service.post(
        '/v1/space/signing-keys',
        {},
        {
          authorization: `Bearer ${await service.loginToken([spaceId])}`,
          'x-service-space-id': spaceId,
        },
      );
      expect(response.status).toBe(200);
    };
    const before = await tokenObjectCount(token);
    // One after another: the first makes the space's key pair, the 19 others touch no HSM.
    for (let i = 0; i < 20; i++) await enable('space-enable-twenty');
    expect(await tokenObjectCount(token)).toBe(before + 2);
    // 20 at once on a new space: one decision records a key; what the others made is destroyed.
    await Promise.all(Array.from({ length: 20 }, () => enable('space-enable-race')));
    expect(await tokenObjectCount(token)).toBe(before + 4);
    // Every start of a process asks for the first shared key: it is there, nothing is made.
    for (let i = 0; i < 5; i++) await ensureFirstSigningKey(events, kek, signer);
    expect(await tokenObjectCount(token)).toBe(before + 4);
    // Three replicas find the two space rings due at once: each ring rotates once, one pair each.
    const policy = { signingLifetimeSeconds: 1, publishAheadSeconds: 0, retireAfterSeconds: 3600 };
    const later = Date.now() + 5000;
    const rounds = await Promise.all(
      [1, 2, 3].map(() => rotateDueSigningKeys(events, signer, { spaces: policy }, later)),
    );
    expect(rounds.flat().sort()).toEqual(['space-enable-race', 'space-enable-twenty']);
    expect(await tokenObjectCount(token)).toBe(before + 8);
    // Asked again, nothing is due: nothing is made.
    await rotateDueSigningKeys(events, signer, { spaces: policy }, later);
    expect(await tokenObjectCount(token)).toBe(before + 8);
    // A change refused once its key is made (here: the decision throws when taken with the key)
    // destroys that key.
    let decisions = 0;
    const refused = changeKeys(
      events,
      signer,
      SERVICE_ACTOR,
      (command, ring) => {
        if (++decisions === 2) throw new Error('refused with the key at hand');
        return { events: decideFirstKey(command, ring, 'space_keys_enabled').events, result: 0 };
      },
      'space-enable-refused',
    );
    await expect(refused).rejects.toThrow(/refused with the key at hand/);
    expect(decisions).toBe(2);
    expect(await tokenObjectCount(token)).toBe(before + 8);
  });
});
