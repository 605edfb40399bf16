import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { signTreeHeads } from '../../../src/audit-trail/seal/tree-head-signing.js';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { loadAuditSigningKey } from '../../../src/audit-trail/audit-key.js';
import { signTreeHead, treeOrigin } from '#audit-log/transparency/tree-head.js';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import { tempDir } from '../../support/after-file.js';

const SPACE = 'space-export-through';
const tsx = path.resolve('node_modules/.bin/tsx');
let service: TestService;
let dir: string;
let keyFile: string;

const seal = async () => {
  while ((await sealLog(service.database.db, 500)) > 0);
};

async function exportOf(query = '') {
  const response = await fetch(
    `${service.baseUrl}/v1/audit/export?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z${query}`,
    {
      headers: {
        authorization: `Bearer ${await service.loginToken([SPACE])}`,
        'x-service-space-id': SPACE,
      },
    },
  );
  return { through: response.headers.get('x-export-through'), text: await response.text() };
}

async function verifyExport(text: string, options: readonly string[] = []) {
  const file = path.join(dir, `export-${Math.random().toString(36).slice(2)}.ndjson`);
  await writeFile(file, text);
  const args = ['src/cli/verify-export.ts', `--key=${keyFile}`, ...options, file];
  const result = await promisify(execFile)(tsx, args).then(
    (ok) => ({ code: 0, stdout: ok.stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
  return { code: result.code, verdict: JSON.parse(result.stdout) as Record<string, unknown> };
}

beforeAll(async () => {
  service = await startTestService();
  dir = await tempDir('export-through-');
  const auditKey = await loadAuditSigningKey(undefined, service.dataDir);
  // Activity sealed and signed (a head), then more sealed that no head covers yet: the state of a
  // running service between two of the projector's head signings.
  const credential = await createCredentialVia(service, SPACE);
  for (let i = 0; i < 3; i++) await privateTokenVia(service, credential);
  await seal();
  await signTreeHeads(service.database.db, (treeId, size, root) =>
    signTreeHead(auditKey, treeOrigin('https://token-authority.example', treeId), size, root),
  );
  for (let i = 0; i < 2; i++) await privateTokenVia(service, credential);
  await seal();
  const served = (await (
    await fetch(`${service.baseUrl}/v1/audit/checkpoints`, {
      headers: {
        authorization: `Bearer ${await service.loginToken([SPACE])}`,
        'x-service-space-id': SPACE,
      },
    })
  ).json()) as { public_key: Record<string, unknown> };
  keyFile = path.join(dir, 'audit-key.jwk');
  await writeFile(keyFile, JSON.stringify(served.public_key));
});

describe('an export made between two signed heads', () => {
  it('ends at the newest signed head by default, says so, and verifies with no flag', async () => {
    const { through, text } = await exportOf();
    expect(through).toBe('4');
    const { code, verdict } = await verifyExport(text);
    expect(verdict).toMatchObject({
      ok: true,
      last_sequence: 4,
      newest_tree_head: 4,
      unanchored_events: 0,
    });
    expect(code).toBe(0);
  });

  it('through=now still gives the unanchored tail, which verify-export refuses unless told', async () => {
    const { through, text } = await exportOf('&through=now');
    expect(through).toBeNull();
    expect((await verifyExport(text)).verdict).toMatchObject({
      ok: false,
      reason: 'events_unanchored',
    });
    const allowed = await verifyExport(text, ['--allow-unanchored-tail']);
    expect(allowed.verdict).toMatchObject({ ok: true, last_sequence: 6, unanchored_events: 2 });
  });

  it('refuses an unknown through with a 400 naming the field', async () => {
    const response = await fetch(
      `${service.baseUrl}/v1/audit/export?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z&through=later`,
      {
        headers: {
          authorization: `Bearer ${await service.loginToken([SPACE])}`,
          'x-service-space-id': SPACE,
        },
      },
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('through');
  });
});
