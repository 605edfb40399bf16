import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { catchUp } from '../../../src/projections/batches.js';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { loadAuditSigningKey } from '../../../src/audit-trail/audit-key.js';
import { signTreeHeads } from '../../../src/audit-trail/seal/tree-head-signing.js';
import { signTreeHead, treeOrigin } from '#audit-log/transparency/tree-head.js';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

const tsx = path.resolve('node_modules/.bin/tsx');
const SPACE = 'space-progress';
let service: TestService;
let dir: string;

/** Runs a CLI of ours against the test database: exit code, stdout, stderr. */
async function cli(script: string, args: string[] = []) {
  return promisify(execFile)(tsx, [`src/cli/${script}.ts`, ...args], {
    env: { ...process.env, DATABASE_URL: service.database.url, DATA_DIR: dir, LOG_LEVEL: 'warn' },
  }).then(
    (ok) => ({ code: 0, ...ok }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

beforeAll(async () => {
  service = await startTestService();
  dir = await mkdtemp(path.join(tmpdir(), 'progress-'));
  const credential = await createCredentialVia(service, SPACE);
  for (let i = 0; i < 5; i += 1) await privateTokenVia(service, credential);
  // Sealed and its heads signed into DATA_DIR, as the projector does: verify-chain holds the
  // tree to them, under the audit key's public half there.
  while ((await sealLog(service.database.db, 500)) > 0);
  const auditKey = await loadAuditSigningKey(undefined, dir);
  await signTreeHeads(
    service.database.db,
    (treeId, size, root) =>
      signTreeHead(auditKey, treeOrigin(service.config.TOKEN_ISSUER, treeId), size, root),
    { dir: path.join(dir, 'audit-checkpoints') },
  );
  for (const projection of PROJECTIONS) await catchUp(service.database.db, projection, 1000);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('long operations show progress on stderr, results on stdout', () => {
  it('verify-chain', async () => {
    const { code, stdout, stderr } = await cli('verify-chain');
    expect(code).toBe(0);
    const verdict = JSON.parse(stdout) as {
      ok: boolean;
      eventsChecked: number;
      headsChecked: number;
    };
    expect(verdict.ok).toBe(true);
    expect(verdict.headsChecked).toBe(1);
    const n = verdict.eventsChecked.toLocaleString('en');
    expect(stderr).toMatch(
      new RegExp(`verify-chain: ${n} / ${n} events \\(100%\\), [\\d,]+/s, done in`),
    );
  });

  it('verify-chain says what no signed head covers yet, and when the next head comes', async () => {
    // Three tokens after the head: two sealed past it, one not sealed at all.
    const credential = await createCredentialVia(service, SPACE, 'after the head');
    await privateTokenVia(service, credential);
    while ((await sealLog(service.database.db, 500)) > 0);
    await privateTokenVia(service, credential);
    const { code, stdout, stderr } = await cli('verify-chain');
    expect(code).toBe(0);
    const verdict = JSON.parse(stdout) as {
      ok: boolean;
      unanchoredEvents: number;
      notYetCovered: {
        events: number;
        sealedPastNewestHead: number;
        notSealed: number;
        nextHeadBy: string;
      };
    };
    expect(verdict.ok).toBe(true);
    expect(verdict.notYetCovered).toMatchObject({
      events: 3,
      sealedPastNewestHead: 2,
      notSealed: 1,
    });
    expect(verdict.unanchoredEvents).toBe(2);
    expect(Number.isNaN(Date.parse(verdict.notYetCovered.nextHeadBy))).toBe(false);
    expect(stderr).toContain('3 event(s) are not covered by a signed head yet');
  });

  it('projector --rebuild', async () => {
    const { code, stderr } = await cli('projector', ['--rebuild', 'rates']);
    expect(code).toBe(0);
    const { count } = await service.database.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    const n = Number(count).toLocaleString('en');
    expect(stderr).toMatch(
      new RegExp(`rebuild rates: ${n} / ${n} events \\(100%\\), [\\d,]+/s, done in`),
    );
  });

  it('verify-export', async () => {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const exported = await fetch(
      `${service.baseUrl}/v1/audit/export?from=${from}&to=${to}&through=now`,
      {
        headers: {
          authorization: `Bearer ${await service.loginToken([SPACE])}`,
          'x-service-space-id': SPACE,
        },
      },
    );
    const text = await exported.text();
    const file = path.join(dir, 'export.ndjson');
    await writeFile(file, text);
    // No checkpoints were signed here: the whole export is an unanchored tail, accepted on purpose.
    const { code, stdout, stderr } = await cli('verify-export', [
      '--allow-unanchored-tail',
      '--no-signature-check',
      file,
    ]);
    expect(JSON.parse(stdout)).toMatchObject({ ok: true });
    expect(code).toBe(0);
    const lines = text.split('\n').length;
    expect(lines).toBeGreaterThan(5);
    expect(stderr).toContain(`verify-export: ${lines} / ${lines} lines (100%)`);
  });
});
