import type { KeyObject } from 'node:crypto';
import type { EventLeaves } from '../event-leaf.js';
import { EXPORT_FORMAT, exportFormat } from '../export-lines.js';
import type { NoteVerifier } from '../transparency/signed-note.js';
import { checkExportLines } from './chain-export.js';
import { readCheckpointStatement, verifyCheckpoint } from './jws-checkpoint.js';
import { checkTreeExport } from './tree-export.js';
import { checkExportTreeHeads } from './tree-export-heads.js';

/** How an export is checked: the log's leaves, its key, the witnesses and what may be accepted. */
export interface ExportCheckOptions {
  readonly leaves: EventLeaves;
  /** The audit key: without it, signatures are read but not checked. */
  readonly publicKey?: KeyObject;
  readonly allowUnanchoredTail: boolean;
  /** Distinct witness keys (witness-keys.ts), of which `minCosignatures` must cosign. */
  readonly witnesses: readonly NoteVerifier[];
  readonly minCosignatures: number;
  readonly allowUnwitnessedTail: boolean;
  /** Format 2: the space's signed head files, by size (head-files.ts). */
  readonly headFiles?: ReadonlyMap<number, string>;
  /** Format 1: the space's JWS checkpoint files, by number (head-files.ts). */
  readonly checkpointFiles?: ReadonlyMap<number, string>;
  /** Told each line a format-1 check has reached. */
  readonly onLine?: (line: number) => void;
}

/**
 * Checks an export of either format offline, as `npm run verify-export` does: the format line
 * (or its absence: format 1, made before issue 45) says which checks apply; format 2 by its tree
 * heads (checkTreeExport), format 1 by its hash chain and JWS checkpoints (checkExportLines);
 * then, if those pass, the space tree's signed heads it carries, cosignatures included
 * (checkExportTreeHeads). `ok` when both pass; the command prints `{ ...verdict, ...heads }`.
 */
export function checkExport(lines: readonly string[], options: ExportCheckOptions) {
  const format = exportFormat(lines);
  if (format > EXPORT_FORMAT) {
    const verdict = {
      ok: false,
      reason: 'malformed_line',
      line: 1,
      detail: `export format ${format} is newer than this verify-export (${EXPORT_FORMAT})`,
    } as const;
    return { ok: false, verdict, heads: undefined };
  }
  const { publicKey } = options;
  const verdict =
    format >= 2
      ? checkTreeExport(lines, {
          leaves: options.leaves,
          publicKey,
          allowUnanchoredTail: options.allowUnanchoredTail,
          minCosignatures: options.minCosignatures,
          ...(options.headFiles ? { headFiles: options.headFiles } : {}),
        })
      : {
          format: 1,
          ...checkExportLines(
            lines,
            publicKey ? (jws) => verifyCheckpoint(publicKey, jws) : undefined,
            readCheckpointStatement,
            (line) => options.onLine?.(line),
            {
              allowUnanchoredTail: options.allowUnanchoredTail,
              ...(options.checkpointFiles ? { checkpointFiles: options.checkpointFiles } : {}),
            },
          ),
        };
  const heads = verdict.ok
    ? checkExportTreeHeads(lines, {
        leaves: options.leaves,
        spaceId: firstSpaceId(lines) ?? null,
        publicKey,
        witnesses: options.witnesses,
        minCosignatures: options.minCosignatures,
        allowUnwitnessedTail: options.allowUnwitnessedTail,
      })
    : undefined;
  return { ok: verdict.ok && heads?.ok !== false, verdict, heads };
}

/** The space of the export's first event (its head files are in that space's folder). */
export function firstSpaceId(lines: readonly string[]): string | undefined {
  for (const line of lines) {
    try {
      const parsed = JSON.parse(line) as { type?: string; event?: { space_id?: unknown } };
      if (parsed.type === 'event' && typeof parsed.event?.space_id === 'string') {
        return parsed.event.space_id;
      }
    } catch {
      // Not JSON: the checks name the line.
    }
  }
  return undefined;
}
