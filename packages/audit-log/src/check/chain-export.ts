import type { CheckpointStatement } from './jws-checkpoint.js';
import { chainHash, GENESIS_HASH } from './chain-link.js';
import type { RecordedEvent } from '../recorded-event.js';
import { exportedEvent, type ChainExportLine } from '../export-lines.js';
import { compareWithFiles } from './checkpoint-files.js';
import { checkExportCheckpoints, type CheckpointFailure } from './chain-export-checkpoints.js';

/** Why an export does not verify. */
export type ExportFailure =
  | 'malformed_line'
  | 'event_altered'
  | 'event_missing'
  | 'events_reordered'
  | 'broken_link'
  | CheckpointFailure
  | 'events_unanchored';

/** The verdict on an export. */
export type ExportVerdict =
  | {
      readonly ok: true;
      readonly space_id: string | null;
      readonly events: number;
      readonly first_sequence: number | null;
      readonly last_sequence: number | null;
      readonly checkpoints: number;
      /** False when no key was given: the checkpoints' signatures were not checked. */
      readonly checkpoints_verified: boolean;
      /** Events after the last checkpoint (accepted only with allowUnanchoredTail). */
      readonly unanchored_events: number;
      /**
       * Files holding the part of the range that was archived (verify them together with the
       * export: --archive-dir); empty when nothing was.
       */
      readonly archived_files: readonly string[];
    }
  | {
      readonly ok: false;
      readonly reason: ExportFailure;
      readonly line: number;
      readonly sequence: number | null;
      readonly detail: string;
    };

/**
 * Verifies an export offline. Events: each hashes, with its previous hash, to its link; sequence
 * numbers run without gaps and in order; each link's previous hash is the link before; a range
 * the export holds whole ends at its seal's stored hash (the database's own record). With
 * `verifyCheckpoint` (the audit public key): every checkpoint's signature, the checkpoints' own
 * chain (numbers without gaps, each naming the one before), and that each checkpoint's head is
 * the exported link at its sequence; a checkpoint past the last exported event means events were
 * cut from the end. Completeness: the last exported event must be covered by a checkpoint (else
 * the events after the last one are unanchored: anyone who can rewrite the database could have
 * written them), unless `allowUnanchoredTail`.
 */
export function checkExportLines(
  lines: Iterable<string>,
  verifyCheckpoint?: (jws: string) => CheckpointStatement | undefined,
  readStatement?: (jws: string) => CheckpointStatement | undefined,
  onLine?: (lineNumber: number, lines: number) => void,
  options: {
    readonly allowUnanchoredTail?: boolean;
    /** The space's checkpoint files (write-once storage), by number: the export must agree. */
    readonly checkpointFiles?: ReadonlyMap<number, string>;
  } = {},
): ExportVerdict {
  let lineNumber = 0;
  let previous: { sequence: number; hash: string } | undefined;
  let first: number | null = null;
  let spaceId: string | null = null;
  const hashes = new Map<number, string>();
  const checkpoints: Array<{ line: number; jws: string }> = [];
  /** Seals by first sequence; and by last sequence those whose first event the export holds. */
  const seals = new Map<number, Extract<ChainExportLine, { type: 'seal' }>>();
  const sealsOpened = new Map<number, Extract<ChainExportLine, { type: 'seal' }>>();
  /** Archive files the export names for what of its range left the database. */
  const archived: string[] = [];
  const fail = (reason: ExportFailure, sequence: number | null, detail: string): ExportVerdict => ({
    ok: false,
    reason,
    line: lineNumber,
    sequence,
    detail,
  });

  const all = [...lines];
  // Every sequence the export holds, wherever it stands: a sequence out of place is a reordering,
  // one that is nowhere is a deletion.
  const present = new Set<number>();
  for (const text of all) {
    const match = /"sequence":(\d+)/.exec(text);
    if (match) present.add(Number(match[1]));
  }
  for (const text of all) {
    lineNumber += 1;
    onLine?.(lineNumber, all.length);
    if (text.trim() === '') continue;
    let line: Extract<ChainExportLine, { type: 'event' }>;
    let event: RecordedEvent;
    try {
      const parsed = JSON.parse(text) as ChainExportLine;
      if (parsed.type === 'seal') {
        if (!Number.isInteger(parsed.first_sequence) || !Number.isInteger(parsed.last_sequence)) {
          throw new Error('no range');
        }
        seals.set(parsed.first_sequence, parsed);
        continue;
      }
      if (parsed.type === 'checkpoint') {
        if (typeof parsed.jws !== 'string') throw new Error('no jws');
        checkpoints.push({ line: lineNumber, jws: parsed.jws });
        continue;
      }
      if (parsed.type === 'tree-head') continue; // tree-export-heads.ts checks them
      if (parsed.type === 'archived') {
        if (typeof parsed.file !== 'string') throw new Error('no file');
        archived.push(parsed.file);
        continue;
      }
      line = parsed;
      event = exportedEvent(line);
      if (!Number.isInteger(line.sequence)) throw new Error('no sequence');
    } catch {
      return fail('malformed_line', null, 'not an export line');
    }
    const { sequence } = line;
    spaceId ??= event.spaceId;
    if (previous) {
      if (sequence <= previous.sequence) {
        return fail(
          'events_reordered',
          sequence,
          `sequence ${sequence} after ${previous.sequence}`,
        );
      }
      if (sequence !== previous.sequence + 1) {
        if (present.has(previous.sequence + 1)) {
          return fail(
            'events_reordered',
            sequence,
            `sequence ${sequence} stands where ${previous.sequence + 1} belongs`,
          );
        }
        return fail(
          'event_missing',
          previous.sequence + 1,
          `events ${previous.sequence + 1}..${sequence - 1} are missing`,
        );
      }
      if (line.previous_hash !== previous.hash) {
        return fail(
          'broken_link',
          sequence,
          `link ${sequence} does not follow link ${previous.sequence}`,
        );
      }
    } else if (sequence === 1 && line.previous_hash !== GENESIS_HASH.toString('hex')) {
      return fail('broken_link', sequence, 'the first link must follow the genesis hash');
    }
    if (chainHash(Buffer.from(line.previous_hash, 'hex'), event).toString('hex') !== line.hash) {
      return fail('event_altered', sequence, `event ${event.eventId} does not match its link`);
    }
    const seal = seals.get(sequence);
    if (seal) {
      if (seal.previous_hash !== line.previous_hash) {
        return fail('broken_link', sequence, `link ${sequence} does not start its seal`);
      }
      sealsOpened.set(seal.last_sequence, seal);
    }
    const sealOpen = sealsOpened.get(sequence);
    if (sealOpen && sealOpen.hash !== line.hash) {
      // Every link of the range matches the event before it, yet the range does not end where it
      // was sealed: one of its events was changed in the database.
      return fail(
        'event_altered',
        sealOpen.first_sequence,
        `an event among sequences ${sealOpen.first_sequence}..${sealOpen.last_sequence} no longer matches the seal of that range`,
      );
    }
    first ??= sequence;
    previous = { sequence, hash: line.hash };
    hashes.set(sequence, line.hash);
  }

  const checked = checkExportCheckpoints(
    checkpoints,
    { spaceId, first, last: previous?.sequence ?? null, hashes },
    verifyCheckpoint,
    readStatement,
  );
  if (!checked.ok) {
    lineNumber = checked.line;
    return fail(checked.reason, checked.sequence, checked.detail);
  }
  const { anchoredThrough } = checked;
  if (options.checkpointFiles) {
    const differs = compareWithFiles(checkpoints, options.checkpointFiles, {
      first,
      last: previous?.sequence ?? null,
      read: verifyCheckpoint ?? readStatement,
    });
    if (differs) {
      lineNumber = differs.line;
      return fail(differs.reason, null, differs.detail);
    }
  }
  const unanchored =
    previous === undefined ? 0 : previous.sequence - (anchoredThrough ?? first! - 1);
  if (unanchored > 0 && !options.allowUnanchoredTail) {
    lineNumber = 0;
    return fail(
      'events_unanchored',
      previous!.sequence - unanchored + 1,
      `${unanchored} event(s) after ${anchoredThrough === null ? 'the start of the export' : `sequence ${anchoredThrough}`} are covered by no signed checkpoint; export up to a checkpoint, or accept that with --allow-unanchored-tail`,
    );
  }
  return {
    ok: true,
    space_id: spaceId,
    events: hashes.size,
    first_sequence: first,
    last_sequence: previous?.sequence ?? null,
    checkpoints: checkpoints.length,
    checkpoints_verified: verifyCheckpoint !== undefined,
    unanchored_events: unanchored,
    archived_files: archived,
  };
}
