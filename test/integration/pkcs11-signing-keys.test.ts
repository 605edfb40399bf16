import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateSigningKey } from '../../src/commands/signing-key/change-keys.js';
import { rewrapSigningKeys, sealKeysInTheClear } from '../../src/commands/signing-key/reseal.js';
import { SERVICE_ACTOR } from '../../src/commands/signing-key/actor.js';
import { ConfigError } from '../../src/config/config.js';
import { keyEncryptionKey } from '../../src/crypto/key-encryption.js';
import { loadKeyEncryptionKey } from '../../src/crypto/key-files.js';
import { openKeyStore, type HsmSigningKey } from '../../src/crypto/key-store.js';
import { openPkcs11Signer } from '../../src/crypto/pkcs11/pkcs11-signer.js';
import { createTestToken, SOFTHSM_MODULE, type TestToken } from '../support/softhsm.js';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../support/test-service.js';
import { waitUntil } from '../support/wait.js';

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
});
