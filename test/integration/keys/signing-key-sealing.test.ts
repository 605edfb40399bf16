import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { keyEncryptionKey, openPrivateKey } from '../../../src/crypto/key-encryption.js';
import { loadKeyEncryptionKey } from '../../../src/crypto/key-files.js';
import { createTestDatabase } from '../../support/test-database.js';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
} from '../../support/test-service.js';
import { tempDir } from '../../support/after-file.js';

const storedKeys = async (pool: { query: (sql: string) => Promise<{ rows: unknown[] }> }) =>
  (await pool.query('SELECT kid, private_jwk FROM signing_keys')).rows as Array<{
    kid: string;
    private_jwk: Record<string, unknown>;
  }>;

describe('token signing keys at rest', () => {
  it('no column holds a private key in the clear: every stored key is sealed, and opens only with the key-encryption key', async () => {
    const service = await startTestService();
    const credential = await createCredentialVia(service, 'space-sealed');
    await privateTokenVia(service, credential);
    const kek = await loadKeyEncryptionKey(undefined, service.dataDir);
    const rows = await storedKeys(service.database.pool);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.private_jwk).not.toHaveProperty('d');
      expect(row.private_jwk).toMatchObject({ sealed: 'A256GCM-envelope-v1', kek: kek.id });
      const opened = openPrivateKey(kek, row.kid, row.private_jwk) as JWK;
      expect(JSON.stringify(row.private_jwk)).not.toContain(opened.d!);
    }
  });

  it('a key written in the clear before sealing existed is sealed at start, recorded as an event', async () => {
    const database = await createTestDatabase(4);
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
    const kid = await calculateJwkThumbprint(publicJwk);
    await database.db
      .insertInto('signing_keys')
      .values({
        kid,
        alg: 'EdDSA',
        private_jwk: JSON.stringify(privateKey.export({ format: 'jwk' })),
        public_jwk: JSON.stringify({ ...publicJwk, kid, alg: 'EdDSA', use: 'sig' }),
        activates_at: new Date(),
        retired_at: null,
      })
      .execute();
    const dataDir = await tempDir('sealing-');
    const service = await startTestService({}, undefined, { database, dataDir });
    const [row] = await storedKeys(service.database.pool);
    expect(row!.private_jwk).toMatchObject({ sealed: 'A256GCM-envelope-v1' });
    const { rows } = await service.database.pool.query(
      `SELECT data FROM events WHERE event_type = 'signing-keys-resealed'`,
    );
    expect(rows.map((r) => r.data)).toEqual([
      { kids: [kid], kek: expect.any(String), reason: 'sealed' },
    ]);
  });

  it('npm run rewrap-signing-keys moves the keys to a new key-encryption key; the service then signs under it', async () => {
    const service = await startTestService();
    const credential = await createCredentialVia(service, 'space-rewrap');
    const oldKek = await loadKeyEncryptionKey(undefined, service.dataDir);
    const newKey = randomBytes(32).toString('base64url');
    const { stdout } = await promisify(execFile)(
      path.resolve('node_modules/.bin/tsx'),
      [
        'src/cli/rewrap-signing-keys.ts',
        `--from=file:${path.join(service.dataDir, 'signing-key-encryption.key')}`,
      ],
      {
        env: {
          ...process.env,
          DATABASE_URL: service.database.url,
          DATA_DIR: service.dataDir,
          SIGNING_KEY_ENCRYPTION_KEY: newKey,
          LOG_LEVEL: 'warn',
        },
      },
    );
    const newKek = keyEncryptionKey(Buffer.from(newKey, 'base64url'));
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as { rewrapped: string[] };
    const rows = await storedKeys(service.database.pool);
    expect(result.rewrapped.sort()).toEqual(rows.map((row) => row.kid).sort());
    for (const row of rows) {
      expect(row.private_jwk).toMatchObject({ kek: newKek.id });
      expect(() => openPrivateKey(oldKek, row.kid, row.private_jwk)).toThrow();
    }
    const { rows: events } = await service.database.pool.query(
      `SELECT data, metadata->>'actor' AS actor FROM events WHERE event_type = 'signing-keys-resealed'`,
    );
    expect(events).toEqual([
      {
        data: { kids: result.rewrapped, kek: newKek.id, reason: 'rewrapped' },
        actor: expect.stringMatching(/^operator:/),
      },
    ]);
    // A replica started with the new key opens the keys and issues tokens.
    const next = await startTestService({ SIGNING_KEY_ENCRYPTION_KEY: newKey }, undefined, {
      database: service.database,
      dataDir: service.dataDir,
    });
    expect(await privateTokenVia(next, credential)).toEqual(expect.any(String));
  });
});
