import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../support/wait.js';
import { loadKeyEncryptionKey } from '../../../src/crypto/key-files.js';
import { rotateSigningKey } from '../../../src/commands/signing-key/change-keys.js';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ SIGNING_KEY_REFRESH_MS: '100' });
});

const jwksKids = async () =>
  (
    (await (await fetch(`${service.baseUrl}/.well-known/jwks.json`)).json()) as {
      keys: Array<{ kid: string }>;
    }
  ).keys.map((k) => k.kid);

describe('signing key rotation', () => {
  it('publishes a new key before it signs, switches at activation, and keeps the old key until its tokens expire', async () => {
    const credential = await createCredentialVia(service, 'space-rotation');
    const before = await privateTokenVia(service, credential);
    const oldKid = decodeProtectedHeader(before).kid!;

    const rotated = await rotateSigningKey(service.api.commands.events, {
      kek: await loadKeyEncryptionKey(undefined, service.dataDir),
      activateInSeconds: 2,
      retireAfterSeconds: 3600,
    });
    // Published at the next key refresh...
    await waitUntil(jwksKids, (kids) => kids.includes(rotated.kid));
    expect(await jwksKids()).toEqual(expect.arrayContaining([oldKid, rotated.kid]));
    // Published, but not signing yet: verifiers have time to learn it.
    expect(decodeProtectedHeader(await privateTokenVia(service, credential)).kid).toBe(oldKid);

    const after = await waitUntil(
      () => privateTokenVia(service, credential),
      (token) => decodeProtectedHeader(token).kid === rotated.kid,
      { intervalMs: 100 },
    );
    // ...and signing nothing issued before its activation time.
    expect(decodeJwt(after).iat! * 1000).toBeGreaterThanOrEqual(
      Math.floor(rotated.activatesAt.getTime() / 1000) * 1000,
    );

    // Both generations verify against the JWKS; the old key is due to leave an hour after activation.
    const jwks = createRemoteJWKSet(new URL(`${service.baseUrl}/.well-known/jwks.json`));
    for (const token of [before, after]) {
      await expect(
        jwtVerify(token, jwks, { issuer: 'http://token-authority.test', audience: AUDIENCE }),
      ).resolves.toBeDefined();
    }
    const { rows } = await service.database.pool.query<{ kid: string; retired_at: Date | null }>(
      'SELECT kid, retired_at FROM signing_keys',
    );
    expect(rows.find((row) => row.kid === oldKid)?.retired_at?.getTime()).toBe(
      rotated.retiresOthersAt.getTime(),
    );
    expect(rows.find((row) => row.kid === rotated.kid)?.retired_at).toBeNull();

    // Once retired, the old key leaves the JWKS and its tokens stop verifying here.
    await service.database.pool.query(
      `UPDATE signing_keys SET retired_at = now() - interval '1 second' WHERE kid = $1`,
      [oldKid],
    );
    await waitUntil(jwksKids, (kids) => kids.length === 1);
    expect(await jwksKids()).toEqual([rotated.kid]);
    const issued = await service.post(
      '/v1/issue',
      { customer_id: 'c', segment_id: 's' },
      { authorization: `Bearer ${before}`, 'x-service-space-id': 'space-rotation' },
    );
    expect(issued.status).toBe(401);
  });
});
