import type { KeyObject } from 'node:crypto';
import { parseCheckpointText } from '../transparency/checkpoint.js';
import type { Hash } from '../transparency/merkle.js';
import { noteVerifier, openNote, parseNote } from '../transparency/signed-note.js';

/** A signed head of the log tree, as log-tree.ts holds the recomputed root to it. */
export interface LogHead {
  readonly size: number;
  readonly root: Hash;
}

/** Why the log tree's heads themselves cannot be trusted. */
export interface LogHeadProblem {
  readonly reason: 'tree_head_forged' | 'tree_head_missing';
  readonly treeSize: number;
  readonly detail: string;
}

/** A stored signed head of the log tree, as the database holds it (merkle_checkpoints). */
export interface LogHeadRow {
  readonly tree_size: number | string;
  readonly note: string;
}

/**
 * The log tree's signed heads (`rows`: its stored heads, smallest first), each checked on its own: a C2SP checkpoint of a log tree (origin `…/audit/log`) of the size it is stored
 * under, signed by the audit key (with `publicKey`). With `files` (the never-rewritten
 * `*.checkpoint` files of the log, by size), every file must be a stored head, byte for byte: a
 * head deleted or rewritten in the database shows here.
 */
export function checkLogHeads(
  rows: readonly LogHeadRow[],
  options: {
    readonly publicKey?: KeyObject;
    readonly files?: ReadonlyMap<number, string>;
  },
): readonly LogHead[] | LogHeadProblem {
  const heads: LogHead[] = [];
  const stored = new Map<number, string>();
  for (const row of rows) {
    const size = Number(row.tree_size);
    const forged = (detail: string) =>
      ({ reason: 'tree_head_forged', treeSize: size, detail }) as const;
    let checkpoint;
    try {
      checkpoint = parseCheckpointText(parseNote(row.note).text);
    } catch {
      return forged('not a signed C2SP checkpoint');
    }
    if (!checkpoint.origin.endsWith('/audit/log') || checkpoint.size !== size) {
      return forged(`a head of ${checkpoint.origin} (${checkpoint.size}), not of the log tree`);
    }
    if (
      options.publicKey &&
      !openNote(row.note, noteVerifier(checkpoint.origin, options.publicKey))
    ) {
      return forged('its signature does not verify under the audit key');
    }
    stored.set(size, row.note);
    heads.push({ size, root: checkpoint.root });
  }
  for (const [size, note] of [...(options.files ?? [])].sort(([a], [b]) => a - b)) {
    const row = stored.get(size);
    if (row === undefined) {
      return {
        reason: 'tree_head_missing',
        treeSize: size,
        detail: `the head of size ${size} is in its file but not in the database`,
      };
    }
    if (row !== note) {
      return {
        reason: 'tree_head_forged',
        treeSize: size,
        detail: `the head of size ${size} differs from its file`,
      };
    }
  }
  return heads;
}
