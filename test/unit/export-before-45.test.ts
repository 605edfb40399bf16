import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/after-file.js';

// An export GET /v1/audit/export served before issue 45 retired the hash chains (seals, links and
// JWS checkpoints, no format line), saved with its audit public key. It must keep verifying.
const FIXTURE = 'test/fixtures/audit-export-v1';
const KEY = path.join(FIXTURE, 'audit-key.pub.json');

async function verifyExport(text: string, options: readonly string[] = []) {
  const file = path.join(await tempDir('v1-'), 'export.ndjson');
  await writeFile(file, text);
  const args = ['--import', 'tsx', 'src/cli/verify-export.ts', `--key=${KEY}`, ...options, file];
  const result = await promisify(execFile)(process.execPath, args).then(
    (ok) => ({ code: 0, stdout: ok.stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
  return { code: result.code, verdict: JSON.parse(result.stdout) as Record<string, unknown> };
}

describe('an export made before the change (format 1: hash chains and JWS checkpoints)', () => {
  it('verifies, with the chain checks its format calls for', async () => {
    const text = await readFile(path.join(FIXTURE, 'export.ndjson'), 'utf8');
    const { code, verdict } = await verifyExport(text);
    expect(verdict).toMatchObject({
      ok: true,
      format: 1,
      events: 12,
      checkpoints: 3,
      checkpoints_verified: true,
      tree_heads: 3,
      tree_heads_matched: 3,
    });
    expect(code).toBe(0);
  });

  it('still names an edited event by its link', async () => {
    const lines = (await readFile(path.join(FIXTURE, 'export.ndjson'), 'utf8')).trim().split('\n');
    const index = lines.findIndex((line) => line.includes('"sequence":6,'));
    const edited = JSON.parse(lines[index]!) as { event: { data: Record<string, unknown> } };
    edited.event.data.client_id = 'ci_someone_else';
    lines[index] = JSON.stringify(edited);
    const { code, verdict } = await verifyExport(lines.join('\n'));
    expect(code).toBe(1);
    expect(verdict).toMatchObject({ ok: false, reason: 'event_altered', sequence: 6 });
  });
});
