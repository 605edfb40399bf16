import { API_NODE_FLAGS } from '../../src/config/node-flags.js';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface Service {
  readonly command?: readonly string[];
  readonly restart?: string;
  readonly environment?: Record<string, unknown>;
  readonly volumes?: readonly string[];
  readonly depends_on?: Record<string, { condition: string }>;
}
const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const { api, projector, migrate } = compose.services as Record<string, Service>;

describe('docker-compose.yml: each service holds only its own secrets', () => {
  it('migrates in a one-shot job, the only service with the owner URL', () => {
    expect(migrate?.restart).toBe('no');
    expect(migrate?.command).toEqual(['node', 'dist/cli/migrate.js']);
    expect(migrate?.environment?.MIGRATION_DATABASE_URL).toEqual(expect.any(String));
    for (const service of [api, projector]) {
      expect(service?.environment).not.toHaveProperty('MIGRATION_DATABASE_URL');
      expect(service?.environment?.MIGRATE_ON_START).toBe('false');
    }
    expect(projector?.depends_on?.migrate?.condition).toBe('service_completed_successfully');
  });

  it('gives the API its own login and the audit public key only, read-only, never the signing key', () => {
    expect(api?.command).toEqual(['node', ...API_NODE_FLAGS, 'dist/cli/api.js']);
    expect(String(api?.environment?.DATABASE_URL)).toContain('token_authority_api_login');
    expect(api?.environment).not.toHaveProperty('AUDIT_SIGNING_KEY');
    expect(api?.environment?.AUDIT_PUBLIC_KEY).toBe('file:/audit/audit-key.pub.json');
    expect(api?.volumes).toContain('auditpublic:/audit:ro');
    expect(projector?.volumes).toContain('auditpublic:/data/audit-public');
    expect(api?.volumes?.some((volume) => volume.startsWith('projectordata:'))).toBe(false);
  });

  it('gives the projector its own login and none of the token secrets', () => {
    expect(String(projector?.environment?.DATABASE_URL)).toContain(
      'token_authority_projector_login',
    );
    expect(projector?.environment?.SIGNING_KEY_ENCRYPTION_KEY).toBe('');
    expect(projector?.environment?.SECRET_HASH_KEY).toBe('');
  });
});
