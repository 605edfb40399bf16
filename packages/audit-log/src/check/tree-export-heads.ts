import type { KeyObject } from 'node:crypto';
import { parseCheckpointText, type Checkpoint } from '../transparency/checkpoint.js';
import { appendLeaves, frontierRoot, type Frontier } from '../transparency/frontier.js';
import { cosigners } from '../transparency/witness-keys.js';
import {
  noteVerifier,
  openNote,
  parseNote,
  type NoteVerifier,
} from '../transparency/signed-note.js';
import type { EventLeaves } from '../event-leaf.js';
import { exportedEvent, type ExportLine } from '../export-lines.js';

/** What an export's tree heads can be found guilty of. */
export type TreeHeadFailure =
  'tree_head_forged' | 'tree_head_mismatch' | 'tree_head_unwitnessed' | 'tree_head_missing';

/** The verdict on an export's tree heads. */
export type TreeHeadsVerdict =
  | {
      readonly ok: true;
      readonly tree_heads: number;
      /** Heads whose root was recomputed from the exported events (those the export holds whole). */
      readonly tree_heads_matched: number;
      readonly cosignatures_required: number;
      /** The largest head with the cosignatures required (null: none; 0 required: every head). */
      readonly witnessed_through: number | null;
      /** The newest head's size: past `witnessed_through`, no witness vouched for the events. */
      readonly newest_tree_head: number | null;
    }
  | {
      readonly ok: false;
      readonly reason: TreeHeadFailure;
      readonly line: number;
      readonly detail: string;
    };

/**
 * Checks an export's signed tree heads (run after checkExportLines accepted its events): each is
 * a C2SP checkpoint of the space's tree signed by the audit key under the space's origin (with
 * `publicKey`) and, when the export holds the space's events from sequence 1 through its size,
 * has the root of the RFC 9162 tree over their leaves. A head with at least `minCosignatures`
 * valid cosignatures of distinct `witnesses` (one public key, one witness) is witnessed; with
 * `minCosignatures` above 0 the newest head must be, since the witnesses vouch for nothing past
 * the last head they cosigned. `allowUnwitnessedTail` accepts newer heads not (yet) cosigned when
 * an older one is, and the verdict says how far the witnessing reaches (`witnessed_through`).
 */
export function checkExportTreeHeads(
  lines: readonly string[],
  options: {
    /** The log's leaves (its redaction bound). */
    readonly leaves: EventLeaves;
    readonly spaceId: string | null;
    readonly publicKey?: KeyObject;
    readonly witnesses: readonly NoteVerifier[];
    readonly minCosignatures: number;
    /** Accept heads newer than the last witnessed one (the verdict's limit says so). */
    readonly allowUnwitnessedTail?: boolean;
  },
): TreeHeadsVerdict {
  const heads: Array<{ line: number; size: number; note: string }> = [];
  const leaves: Buffer[] = [];
  let contiguousFromOne = true;
  lines.forEach((text, i) => {
    if (text.trim() === '') return;
    const line = JSON.parse(text) as ExportLine; // checkExportLines accepted every line first
    if (line.type === 'tree-head') {
      heads.push({ line: i + 1, size: line.tree_size, note: line.checkpoint });
    } else if (line.type === 'event') {
      contiguousFromOne &&= line.sequence === leaves.length + 1;
      leaves.push(options.leaves.eventLeafHash(exportedEvent(line)));
    }
  });
  const fail = (reason: TreeHeadFailure, line: number, detail: string) =>
    ({ ok: false, reason, line, detail }) as const;
  if (heads.length === 0 && options.minCosignatures > 0) {
    return fail('tree_head_missing', 0, 'the export holds no signed tree head to be cosigned');
  }
  let witnessed: { line: number; size: number } | undefined;
  const suffix = `/audit/space/${encodeURIComponent(options.spaceId ?? '')}`;
  let frontier: Frontier = { size: 0, nodes: [] };
  let matched = 0;
  for (const head of heads.sort((a, b) => a.size - b.size)) {
    let checkpoint: Checkpoint;
    try {
      checkpoint = parseCheckpointText(parseNote(head.note).text);
    } catch {
      return fail('tree_head_forged', head.line, 'not a signed C2SP checkpoint');
    }
    if (!checkpoint.origin.endsWith(suffix) || checkpoint.size !== head.size) {
      return fail(
        'tree_head_forged',
        head.line,
        `a head of ${checkpoint.origin} (${checkpoint.size}), not of this space's tree`,
      );
    }
    if (
      options.publicKey &&
      !openNote(head.note, noteVerifier(checkpoint.origin, options.publicKey))
    ) {
      return fail(
        'tree_head_forged',
        head.line,
        'tree head signature does not verify under the key',
      );
    }
    if (cosigners(head.note, options.witnesses).length >= options.minCosignatures) witnessed = head;
    if (!contiguousFromOne || head.size > leaves.length) continue;
    frontier = appendLeaves(frontier, leaves.slice(frontier.size, head.size)).frontier;
    if (!frontierRoot(frontier)!.equals(checkpoint.root)) {
      return fail(
        'tree_head_mismatch',
        head.line,
        `the exported events 1..${head.size} do not make the root the head of size ${head.size} signed`,
      );
    }
    matched += 1;
  }
  if (options.minCosignatures > 0 && !witnessed) {
    return fail(
      'tree_head_unwitnessed',
      heads[0]?.line ?? 0,
      `no tree head in the export has ${options.minCosignatures} cosignatures of the witnesses given`,
    );
  }
  const newest = heads.at(-1);
  if (witnessed && newest && witnessed.size < newest.size && !options.allowUnwitnessedTail) {
    return fail(
      'tree_head_unwitnessed',
      newest.line,
      `the newest tree head (size ${newest.size}) has fewer than ${options.minCosignatures} cosignatures of the witnesses given: they vouch for events 1..${witnessed.size} only (--allow-unwitnessed-tail accepts that, and the verdict says so)`,
    );
  }
  return {
    witnessed_through: witnessed?.size ?? null,
    newest_tree_head: newest?.size ?? null,
    ok: true,
    tree_heads: heads.length,
    tree_heads_matched: matched,
    cosignatures_required: options.minCosignatures,
  };
}
