import type { KeyObject } from 'node:crypto';
import { parseCheckpointText } from '../transparency/checkpoint.js';
import { appendLeaves, frontierRoot, type Frontier } from '../transparency/frontier.js';
import { noteVerifier, openNote, parseNote } from '../transparency/signed-note.js';
import type { EventLeaves } from '../event-leaf.js';
import type { ExportFailure } from './chain-export.js';
import { exportedEvent, type TreeExportLine } from '../export-lines.js';
import type { TreeHeadFailure } from './tree-export-heads.js';
import { laterHeadMatches } from './later-head.js';

/** The verdict on an export of format 2 (the Merkle log its only evidence). */
export type TreeExportVerdict =
  | {
      readonly ok: true;
      readonly format: 2;
      readonly space_id: string | null;
      readonly events: number;
      readonly first_sequence: number | null;
      readonly last_sequence: number | null;
      /** Heads held to the recomputed root; checkpoints_verified: their signatures checked. */
      readonly tree_heads_matched: number;
      readonly checkpoints_verified: boolean;
      readonly unanchored_events: number;
      readonly archived_files: readonly string[];
    }
  | {
      readonly ok: false;
      readonly reason: ExportFailure | TreeHeadFailure;
      readonly line: number;
      readonly sequence: number | null;
      readonly detail: string;
    };

/**
 * Checks an export of format 2 offline. Events: sequences run without gaps and in order from the
 * frontier's size + 1 (or 1). Heads: each a C2SP checkpoint of this space's tree, signed by the
 * audit key under its origin (with `publicKey`); the events, appended to the frontier, must make
 * the root each head signed (an edited event is named by the range between the last head that
 * matched and the first that did not); a head past the last event means events were cut from the
 * end; events past the largest head are unanchored unless `allowUnanchoredTail`. With
 * `headFiles` (the space's never-rewritten `*.checkpoint` files, by size), each head must be its
 * file and every file of a size among the exported events must be in the export.
 */
export function checkTreeExport(
  lines: readonly string[],
  options: {
    /** The log's leaves (its redaction bound): the export's events are hashed as it sealed them. */
    readonly leaves: EventLeaves;
    readonly publicKey?: KeyObject;
    readonly allowUnanchoredTail?: boolean;
    readonly headFiles?: ReadonlyMap<number, string>;
    /** Cosignatures required (tree-export-heads.ts counts them): with none, no head fails. */
    readonly minCosignatures?: number;
  },
): TreeExportVerdict {
  const fail = (
    reason: Extract<TreeExportVerdict, { ok: false }>['reason'],
    line: number,
    sequence: number | null,
    detail: string,
  ) => ({ ok: false, reason, line, sequence, detail }) as const;
  const present = new Set<number>();
  for (const text of lines) {
    const match = /"type":"event","sequence":(\d+)/.exec(text);
    if (match) present.add(Number(match[1]));
  }
  let frontier: Frontier = { size: 0, nodes: [] };
  let spaceId: string | null = null;
  let first: number | null = null;
  let last: number | null = null;
  const leaves: Buffer[] = [];
  const heads: Array<{ line: number; size: number; note: string }> = [];
  const archived: string[] = [];
  for (const [i, text] of lines.entries()) {
    if (text.trim() === '') continue;
    let line: TreeExportLine;
    try {
      line = JSON.parse(text) as TreeExportLine;
      if (line.type === 'frontier') {
        frontier = {
          size: line.tree_size,
          nodes: line.nodes.map((n) => ({ level: n.level, hash: Buffer.from(n.hash, 'hex') })),
        };
      } else if (line.type === 'tree-head') {
        if (typeof line.checkpoint !== 'string') throw new Error('no checkpoint');
        heads.push({ line: i + 1, size: line.tree_size, note: line.checkpoint });
      } else if (line.type === 'archived') {
        archived.push(line.file);
      } else if (line.type === 'event') {
        if (!Number.isInteger(line.sequence)) throw new Error('no sequence');
        const event = exportedEvent(line);
        const expected: number = (last ?? frontier.size) + 1;
        if (line.sequence !== expected) {
          if (line.sequence < expected || present.has(expected)) {
            return fail(
              'events_reordered',
              i + 1,
              line.sequence,
              `sequence ${line.sequence} stands where ${expected} belongs`,
            );
          }
          return fail(
            'event_missing',
            i + 1,
            expected,
            `events ${expected}..${line.sequence - 1} are missing`,
          );
        }
        spaceId ??= event.spaceId;
        first ??= line.sequence;
        last = line.sequence;
        leaves.push(options.leaves.eventLeafHash(event));
      } else if (!['format', 'seal', 'checkpoint'].includes(line.type)) {
        // Seals and JWS checkpoints come from archives made before the change: the heads vouch.
        throw new Error('unknown line');
      }
    } catch {
      return fail('malformed_line', i + 1, null, 'not an export line');
    }
  }
  if (heads.length === 0 && (options.minCosignatures ?? 0) > 0) {
    return fail(
      'tree_head_missing',
      0,
      null,
      'the export holds no signed tree head to be cosigned',
    );
  }
  const suffix = `/audit/space/${encodeURIComponent(spaceId ?? '')}`;
  let matched = 0;
  let anchored = frontier.size;
  let tree = frontier;
  for (const head of heads.sort((a, b) => a.size - b.size)) {
    let checkpoint;
    try {
      checkpoint = parseCheckpointText(parseNote(head.note).text);
    } catch {
      return fail('tree_head_forged', head.line, null, 'not a signed C2SP checkpoint');
    }
    if (!checkpoint.origin.endsWith(suffix) || checkpoint.size !== head.size) {
      return fail(
        'tree_head_forged',
        head.line,
        null,
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
        null,
        'tree head signature does not verify under the key',
      );
    }
    if (last === null || head.size > last) {
      return fail(
        'events_cut_at_end',
        head.line,
        (last ?? frontier.size) + 1,
        `the tree head of size ${head.size} covers events up to ${head.size}; the export ends at ${last ?? frontier.size}`,
      );
    }
    if (head.size <= frontier.size) continue;
    tree = appendLeaves(
      tree,
      leaves.slice(tree.size - frontier.size, head.size - frontier.size),
    ).frontier;
    if (!frontierRoot(tree)!.equals(checkpoint.root)) {
      // The events agree with a later head: this head signed another root, not the events.
      if (laterHeadMatches(heads, head.size, tree, leaves.slice(head.size - frontier.size))) {
        return fail(
          'tree_head_mismatch',
          head.line,
          head.size,
          `the exported events 1..${head.size} do not make the root the head of size ${head.size} signed, though they make a later head's`,
        );
      }
      // Every event up to the last matching head made its root: the change lies after it.
      return fail(
        'event_altered',
        head.line,
        anchored + 1,
        `an event among sequences ${anchored + 1}..${head.size} no longer matches the tree head of size ${head.size} (or the frontier does not)`,
      );
    }
    matched += 1;
    anchored = head.size;
  }
  if (options.headFiles) {
    const exported = new Map(heads.map((head) => [head.size, head]));
    for (const [size, note] of [...options.headFiles].sort(([a], [b]) => a - b)) {
      if (first === null || last === null || size < first || size > last) continue;
      const head = exported.get(size);
      if (!head) {
        return fail(
          'checkpoint_missing',
          0,
          size,
          `the tree head of size ${size} (its file) is missing from the export`,
        );
      }
      // The file is the note as signed; the export appends the witnesses' cosignature lines.
      if (!head.note.startsWith(note)) {
        return fail(
          'checkpoint_mismatch',
          head.line,
          size,
          `the tree head of size ${size} differs from its file`,
        );
      }
    }
  }
  const unanchored = last === null ? 0 : last - anchored;
  if (unanchored > 0 && !options.allowUnanchoredTail) {
    return fail(
      'events_unanchored',
      0,
      anchored + 1,
      `${unanchored} event(s) after ${anchored === 0 ? 'the start of the export' : `sequence ${anchored}`} are covered by no signed tree head; export up to a head, or accept that with --allow-unanchored-tail`,
    );
  }
  return {
    ok: true,
    format: 2,
    space_id: spaceId,
    events: leaves.length,
    first_sequence: first,
    last_sequence: last,
    tree_heads_matched: matched,
    checkpoints_verified: options.publicKey !== undefined,
    unanchored_events: unanchored,
    archived_files: archived,
  };
}
