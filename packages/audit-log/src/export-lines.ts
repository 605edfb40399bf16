import { recordedEventOf, type RecordedEvent, type RecordedEventRow } from './recorded-event.js';

/**
 * The audit export's line format, every line of both formats, in the one module the API that
 * writes exports (and archive files) and the offline checks that read them both import.
 *
 * Format 1 (no format line: exports and archives made before issue 45) carries the space's hash
 * chain: seals, each event with its link, JWS checkpoints. Format 2 carries the Merkle log only:
 * each event as its leaf covers it, the tree's frontier before the first exported event (when it
 * is not the first), and the space tree's signed heads with their cosignatures: the root is
 * recomputed and held to the heads. Signed heads and archived ranges are lines of both formats.
 */
export const EXPORT_FORMAT = 2;

/** The first line of an export of format 2 and later. */
export interface FormatLine {
  readonly type: 'format';
  readonly version: number;
}

/**
 * The space tree's right edge before the first exported event: the perfect subtree of each 1 bit
 * of `tree_size`, largest first, so the events that follow extend it to each head's root.
 */
export interface FrontierLine {
  readonly type: 'frontier';
  readonly tree_size: number;
  readonly nodes: ReadonlyArray<{ readonly level: number; readonly hash: string }>;
}

/** An event in format 2: no link, the signed heads anchor it. */
export interface TreeEventLine {
  readonly type: 'event';
  readonly sequence: number;
  /** The event exactly as its leaf covers it: canonical, secret hashes replaced by a digest. */
  readonly event: Record<string, unknown>;
  /**
   * The trace of the request that appended it, when that request was traced and sampled: beside
   * the event, never covered by its leaf or any check (tracing never changes the evidence).
   */
  readonly trace?: { readonly trace_id: string; readonly span_id: string };
}

/** A signed head of the space's Merkle tree (a C2SP checkpoint note, with its cosignatures). */
export interface TreeHeadLine {
  readonly type: 'tree-head';
  readonly tree_size: number;
  readonly checkpoint: string;
}

/** Part of the range is no longer in the database: these events are in this archive file. */
export interface ArchivedLine {
  readonly type: 'archived';
  readonly from: string;
  readonly to: string;
  readonly file: string;
  readonly sha256: string;
  readonly events: number;
  readonly first_sequence: number | null;
  readonly last_sequence: number | null;
}

/** Format 1: a sealed range of the space's hash chain (the range and the hash it stored). */
export interface ChainSealLine {
  readonly type: 'seal';
  readonly first_sequence: number;
  readonly last_sequence: number;
  readonly previous_hash: string;
  readonly hash: string;
}

/** Format 1: an event with its link in the space's hash chain. */
export interface ChainEventLine {
  readonly type: 'event';
  readonly sequence: number;
  readonly previous_hash: string;
  readonly hash: string;
  /** The event exactly as its link covers it: canonical, secret hashes replaced by a digest. */
  readonly event: Record<string, unknown>;
}

/** Format 1: a JWS checkpoint over the space's hash chain. */
export interface JwsCheckpointLine {
  readonly type: 'checkpoint';
  readonly jws: string;
}

/** One line of an export of format 1. */
export type ChainExportLine =
  ChainSealLine | ChainEventLine | JwsCheckpointLine | TreeHeadLine | ArchivedLine;

/** One line of an export of format 2. */
export type TreeExportLine =
  FormatLine | FrontierLine | TreeEventLine | TreeHeadLine | ArchivedLine;

/** One line of an export of either format (an archive file may hold lines of both). */
export type ExportLine = ChainExportLine | TreeExportLine;

/** An event line of either format. */
export type EventLine = ChainEventLine | TreeEventLine;

/** The format an export's lines declare: 1 when the first non-empty line is not a format line. */
export function exportFormat(lines: Iterable<string>): number {
  for (const text of lines) {
    if (text.trim() === '') continue;
    try {
      const line = JSON.parse(text) as Partial<FormatLine>;
      return line.type === 'format' && Number.isInteger(line.version) ? line.version! : 1;
    } catch {
      return 1;
    }
  }
  return 1;
}

/** An export line's event as it was recorded (the same bytes its link and its leaf cover). */
export function exportedEvent(line: Pick<EventLine, 'event'>): RecordedEvent {
  return recordedEventOf(line.event as unknown as RecordedEventRow);
}
