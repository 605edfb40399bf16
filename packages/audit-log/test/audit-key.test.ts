import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AUDIT_KEY_FILES,
  auditKeyOf,
  generatedAuditKeyJwk,
  jwkThumbprint,
  readAuditPublicFile,
  writeAuditPublicFile,
} from '../src/audit-key.js';

describe('the audit key', () => {
  it('is named by its RFC 7638 thumbprint (RFC 8037 A.3)', () => {
    const x = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';
    expect(jwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x })).toBe(
      'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
    );
    const { publicKey } = generateKeyPairSync('ed25519');
    const key = auditKeyOf(publicKey);
    expect(key.publicJwk).toMatchObject({ kid: key.kid, alg: 'EdDSA', use: 'sig', kty: 'OKP' });
    expect(key.privateKey).toBeUndefined();
  });

  it('is generated once into the data folder, its public half in a folder of its own', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'audit-key-'));
    expect(await readAuditPublicFile(dir)).toBeUndefined();
    const jwk = await generatedAuditKeyJwk(dir);
    expect(await generatedAuditKeyJwk(dir)).toEqual(jwk);
    expect((await stat(path.join(dir, AUDIT_KEY_FILES.private))).mode & 0o777).toBe(0o600);
    const privateKey = createPrivateKey({ key: jwk as never, format: 'jwk' });
    const key = auditKeyOf(createPublicKey(privateKey), privateKey);
    await writeAuditPublicFile(dir, key);
    expect(await readAuditPublicFile(dir)).toEqual(key.publicJwk);
    const written = await readFile(path.join(dir, AUDIT_KEY_FILES.public), 'utf8');
    expect(written).not.toContain('"d"');
  });
});
