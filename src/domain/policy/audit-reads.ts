/** A space's audit reader sees its space's tree and events, and the log tree's hashes. */

/** The tree a reader asks for: its own space's, or the log tree over every space. */
export type TreeChoice = 'space' | 'log';

/** The tree a reader is served, and how much of it. */
export interface ReadableTree {
  /** The space whose tree it is; null: the log tree. Never another space's than the reader's. */
  readonly spaceId: string | null;
  /** Only at heads published on the schedule ({@link onlyPublishedHeads}). */
  readonly publishedHeadsOnly: boolean;
}

/**
 * The log tree is read only at heads published on the schedule (AUDIT_CHECKPOINT_INTERVAL_SECONDS):
 * its size at any other moment would tell one tenant how much the others record right now.
 */
export function onlyPublishedHeads(choice: TreeChoice): boolean {
  return choice === 'log';
}

/** The log tree is readable by any space (hashes only); a space tree only by its own space. */
export function readableTree(choice: TreeChoice, readerSpace: string): ReadableTree {
  return {
    spaceId: choice === 'log' ? null : readerSpace,
    publishedHeadsOnly: onlyPublishedHeads(choice),
  };
}

/** Another space's event is answered as one that does not exist. */
export function eventVisibleTo(event: { readonly space_id: string }, readerSpace: string): boolean {
  return event.space_id === readerSpace;
}
