import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalEventBytes } from '#audit-log/event-leaf.js';
import { exportedEvent } from '#audit-log/export-lines.js';
import { leafHash } from '#audit-log/transparency/merkle.js';
import type { RecordedEvent } from '#event-log/types.js';
import { eventLeafHash, leafEntry } from '../../src/audit-trail/event-leaf.js';

const TRAIL = path.resolve('src/audit-trail');
const PACKAGE = path.resolve('packages/audit-log/src');

/** Every .ts file under `dir` (src/audit-trail or the audit-log package), with its text. */
function trailFiles(dir = TRAIL, root = dir): Array<{ file: string; text: string }> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return trailFiles(full, root);
    if (!entry.name.endsWith('.ts')) return [];
    return [{ file: path.relative(root, full), text: readFileSync(full, 'utf8') }];
  });
}
const allTrailFiles = () => [...trailFiles(), ...trailFiles(PACKAGE)];

const credentialCreated: RecordedEvent = {
  globalPosition: 7,
  transactionId: '700',
  spaceId: 'space-a',
  streamId: 'credential-1',
  streamPosition: 1,
  eventId: '00000000-0000-4000-8000-000000000001',
  type: 'credential-created',
  schemaVersion: 1,
  data: { client_id: 'ci_1', secret_hash: 'scrypt$secret' },
  metadata: { actor: 'user:alice' },
  recordedAt: new Date('2026-01-01T00:00:00.000Z'),
};

describe("an event's leaf (event-leaf.ts)", () => {
  it('is the redacted event: the secret hash is not in the entry, its digest is', () => {
    const entry = leafEntry(credentialCreated).toString('utf8');
    expect(entry).not.toContain('scrypt$secret');
    expect(entry).toMatch(/"secret_hash":"sha256:[0-9a-f]{64}"/);
    expect(eventLeafHash(credentialCreated)).not.toEqual(
      leafHash(canonicalEventBytes(credentialCreated)),
    );
  });

  it('is the same read back from an export line as sealed from the stored event', () => {
    const line = { event: JSON.parse(leafEntry(credentialCreated).toString('utf8')) };
    expect(eventLeafHash(exportedEvent(line))).toEqual(eventLeafHash(credentialCreated));
  });

  it('has one definition: only event-leaf.ts (leaves) and the format-1 chain link hash event bytes', () => {
    const hashing = allTrailFiles()
      .filter(({ text }) => /\bcanonicalEventBytes\(/.test(text))
      .map(({ file }) => path.basename(file))
      .sort();
    expect(hashing).toEqual(['chain-link.ts', 'event-leaf.ts']);
    // The service binds the catalog's redaction to the leaves once, in its event-leaf.ts; the
    // checks are handed those leaves, never a redaction of their own.
    const binding = allTrailFiles()
      .filter(({ text }) => /\beventLeaves\(/.test(text))
      .map(({ file }) => file)
      .sort();
    expect(binding).toEqual(['event-leaf.ts', 'event-leaf.ts']);
  });
});

describe('the export line format (export-lines.ts)', () => {
  it('is declared in one module: no other file of the audit trail declares a line type', () => {
    const declaring = allTrailFiles()
      .filter(({ text }) =>
        /readonly type: '(format|frontier|event|tree-head|archived|seal|checkpoint)'/.test(text),
      )
      .map(({ file }) => path.basename(file));
    expect(declaring).toEqual(['export-lines.ts']);
  });
});
