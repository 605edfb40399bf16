import { parseCheckpointText } from '../transparency/checkpoint.js';
import { appendLeaves, frontierRoot, type Frontier } from '../transparency/frontier.js';
import { parseNote } from '../transparency/signed-note.js';

// A head whose root the events do not make is named apart from an edited event when the same
// events make a later head's root: then the head, not the events, is what differs.

/** Whether a head larger than `size` has the root of `tree` extended by `rest` (leaves after it). */
export function laterHeadMatches(
  heads: ReadonlyArray<{ readonly size: number; readonly note: string }>,
  size: number,
  tree: Frontier,
  rest: readonly Buffer[],
): boolean {
  return heads.some((later) => {
    if (later.size <= size || later.size - tree.size > rest.length) return false;
    try {
      const { root } = parseCheckpointText(parseNote(later.note).text);
      const extended = appendLeaves(tree, rest.slice(0, later.size - tree.size)).frontier;
      return frontierRoot(extended)!.equals(root);
    } catch {
      return false;
    }
  });
}
