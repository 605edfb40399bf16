import type { ExportLine } from './export.js';

/**
 * The export formats verify-export tells apart by an export's first line. Format 1 (no format
 * line: exports and archives made before issue 45) carries the space's hash chain: seals, each
 * event with its link, JWS checkpoints. Format 2 carries the Merkle log only: each event as its
 * leaf covers it, the tree's frontier before the first exported event (when it is not the first),
 * and the space tree's signed heads with their cosignatures: the root is recomputed and held to
 * the heads.
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

/** An event in format 2: no link, the tree heads anchor it. */
export interface TreeEventLine {
  readonly type: 'event';
  readonly sequence: number;
  /** The event exactly as its leaf covers it: canonical, secret hashes replaced by a digest. */
  readonly event: Record<string, unknown>;
}

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

/** One line of an export of format 2. */
export type TreeExportLine =
  | FormatLine
  | FrontierLine
  | TreeEventLine
  | Extract<ExportLine, { type: 'tree-head' | 'archived' }>;
