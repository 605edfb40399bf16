import { createHash } from 'node:crypto';

/**
 * What an archive file's index says (token-authority keeps it in its database): which gzip member
 * of which file holds each tile's archived events, and which archived sequence an event id or a
 * token's first event is. A proof over archived events then reads one member of one file.
 */

/** One gzip member of an archive file: the space's events `first_sequence`..`last_sequence`. */
export interface ArchiveBlock {
  readonly first_sequence: number;
  readonly last_sequence: number;
  readonly byte_offset: number;
  readonly byte_length: number;
  /** SHA-256 of the member's own bytes (the file's hash needs the whole file read). */
  readonly sha256: string;
}

/** An archived event's lookup key and its sequence in the space's chain. */
export interface ArchiveKey {
  readonly key: Buffer;
  readonly sequence: number;
}

/** What an archived leaf is looked up by: an event id, or a stream (its first event: a token). */
export type ArchivedLeafId = { readonly eventId: string } | { readonly streamId: string };

/**
 * The key of an event id or of a stream's first event: 16 bytes of SHA-256 over the kind and the
 * id, so every key is the same size whatever the id (a collision is only a miss: the line read is
 * compared with the id itself).
 */
export function archiveKey(which: ArchivedLeafId): Buffer {
  const [kind, id] = 'eventId' in which ? ['event', which.eventId] : ['stream', which.streamId];
  return createHash('sha256').update(`${kind}\0${id}`).digest().subarray(0, 16);
}

/** An archive file's member that holds some of a space's archived sequences. */
export interface ArchivedBlock extends ArchiveBlock {
  readonly file: string;
}
