import type { CheckpointStatement } from './jws-checkpoint.js';

/**
 * The export's checkpoints against the space's checkpoint files: each exported checkpoint must be
 * its file, byte for byte, and every file whose head lies within the exported events must be in
 * the export (a checkpoint row deleted or rewritten in the database shows here).
 */
export function compareWithFiles(
  exported: ReadonlyArray<{ line: number; jws: string }>,
  files: ReadonlyMap<number, string>,
  range: {
    readonly first: number | null;
    readonly last: number | null;
    readonly read?: (jws: string) => CheckpointStatement | undefined;
  },
):
  | {
      line: number;
      reason: 'checkpoint_missing' | 'checkpoint_mismatch';
      detail: string;
    }
  | undefined {
  const numbers = new Set<number>();
  for (const checkpoint of exported) {
    const number = range.read?.(checkpoint.jws)?.checkpoint_number;
    if (number === undefined) continue;
    numbers.add(number);
    const file = files.get(number);
    if (file === undefined) {
      return {
        line: checkpoint.line,
        reason: 'checkpoint_missing',
        detail: `no file for checkpoint ${number}`,
      };
    }
    if (file !== checkpoint.jws) {
      return {
        line: checkpoint.line,
        reason: 'checkpoint_mismatch',
        detail: `checkpoint ${number} differs from its file`,
      };
    }
  }
  for (const [number, jws] of [...files].sort(([a], [b]) => a - b)) {
    const sequence = range.read?.(jws)?.sequence;
    if (sequence === undefined || range.first === null || range.last === null) continue;
    if (sequence >= range.first && sequence <= range.last && !numbers.has(number)) {
      return {
        line: 0,
        reason: 'checkpoint_missing',
        detail: `checkpoint ${number} (its file covers sequence ${sequence}) is missing from the export`,
      };
    }
  }
  return undefined;
}
