/**
 * What a space's reader of the audit trail may see: its own space's tree and events, and the log
 * tree over every space's events (hashes only), at published heads alone.
 */

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

/**
 * The log tree is readable by any space (its heads and proofs are hashes; an entry is only ever
 * one of the reader's own space's events); a space tree only by its own space.
 */
export function readableTree(choice: TreeChoice, readerSpace: string): ReadableTree {
  return {
    spaceId: choice === 'log' ? null : readerSpace,
    publishedHeadsOnly: onlyPublishedHeads(choice),
  };
}

/**
 * An event is shown (its entry, its proof) only to a reader of its own space: another space's
 * event is answered as one that does not exist.
 */
export function eventVisibleTo(event: { readonly space_id: string }, readerSpace: string): boolean {
  return event.space_id === readerSpace;
}
