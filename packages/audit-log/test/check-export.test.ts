import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkTreeExport,
  checkpointText,
  EXPORT_FORMAT,
  eventLeaves,
  memoryTree,
  noteSigner,
  redactionOf,
  signNote,
  treeRoot,
  type RecordedEvent,
} from '../src/index.js';

// The package alone, as a reviewer or another service uses it: a log of its own, its redaction,
// an export of format 2 written from its leaves and checked offline.
const leaves = eventLeaves(redactionOf({ 'secret-set': { redacted: ['secret'] } }));
const ORIGIN = 'log.example/audit/space/s1';
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const event = (n: number): RecordedEvent => ({
  globalPosition: n,
  transactionId: String(100 + n),
  spaceId: 's1',
  streamId: `thing-${n}`,
  streamPosition: 1,
  eventId: `00000000-0000-4000-8000-00000000000${n}`,
  type: n === 2 ? 'secret-set' : 'thing-made',
  schemaVersion: 1,
  data: n === 2 ? { secret: 'hunter2' } : { n },
  metadata: {},
  recordedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)),
});
const events = [1, 2, 3].map(event);
const tree = memoryTree(events.map(leaves.eventLeafHash));
const head = signNote(checkpointText({ origin: ORIGIN, size: 3, root: treeRoot(tree, 3) }), [
  noteSigner(ORIGIN, privateKey),
]);
const exportLines = (entries: readonly Buffer[]) => [
  JSON.stringify({ type: 'format', version: EXPORT_FORMAT }),
  ...entries.map((entry, i) =>
    JSON.stringify({ type: 'event', sequence: i + 1, event: JSON.parse(entry.toString('utf8')) }),
  ),
  JSON.stringify({ type: 'tree-head', tree_size: 3, checkpoint: head }),
];

describe('the package alone: an export checked offline', () => {
  it('accepts the export its leaves make, the secret shown only as its digest', () => {
    const lines = exportLines(events.map(leaves.leafEntry));
    expect(lines.join('\n')).not.toContain('hunter2');
    expect(checkTreeExport(lines, { leaves, publicKey })).toMatchObject({
      ok: true,
      events: 3,
      tree_heads_matched: 1,
    });
  });

  it('names an edited event', () => {
    const entries = events.map(leaves.leafEntry);
    entries[2] = Buffer.from(entries[2]!.toString('utf8').replace('"n":3', '"n":4'));
    expect(checkTreeExport(exportLines(entries), { leaves, publicKey })).toMatchObject({
      ok: false,
      reason: 'event_altered',
    });
  });
});
