import type { KeyObject } from 'node:crypto';
import type { RecordedEvent } from '../recorded-event.js';
import type { EventLeaves } from '../event-leaf.js';
import { readArchiveFile, readManifests, type ArchiveProblem } from '../archive-folder.js';
import { checkTreeExport } from './tree-export.js';
import {
  EXPORT_FORMAT,
  exportFormat,
  exportedEvent,
  type ArchivedLine,
  type ExportLine,
} from '../export-lines.js';
import { compareLogPositions } from './log-order.js';

/** An export and a space's archive files as one export, and where each line came from. */
export interface MergedExport {
  readonly lines: readonly string[];
  /** For each line: the archive file it came from, or `export`. */
  readonly sources: readonly string[];
}

/**
 * Reads the archive folder `dir` for the export's space and merges its files with the export
 * into one export in sequence order: the format line, the frontier the events start from, the
 * events (format 1: each seal before its first event), every JWS checkpoint of format 1 once by
 * number, then every signed tree head once. The export's verifier then checks the space's events
 * from the first archived to the live tail as one: in format 2 they make each head's root from
 * the frontier, in format 1 one unbroken chain. Fails, naming the file, when a file the manifests
 * or the export name is missing or does not hash to what they say, when the folder holds a file
 * no manifest names, or when an archive and the export disagree about an event.
 */
export async function mergeWithArchive(
  dir: string,
  exportLines: readonly string[],
  checkpointNumber: (jws: string) => number | undefined,
): Promise<MergedExport | (ArchiveProblem & { readonly detail: string })> {
  const { manifests, extra } = await readManifests(dir);
  const parsedExport = exportLines.filter((line) => line.trim() !== '').map(parseLine);
  const entries = manifests.flatMap((manifest) => manifest.files);
  const named = parsedExport.filter((line): line is ArchivedLine => line?.type === 'archived');
  const spaceId =
    firstEventSpace(parsedExport) ??
    entries.find((entry) => named.some((line) => line.file === entry.file))?.space_id;
  if (extra.length > 0) {
    return {
      reason: 'archive_file_extra',
      file: extra[0]!,
      detail: `${extra[0]} is in the archive folder but in no manifest`,
    };
  }
  for (const line of named) {
    const entry = entries.find((candidate) => candidate.file === line.file);
    if (!entry) {
      return {
        reason: 'archive_file_missing',
        file: line.file,
        detail: `the export names ${line.file}, which no manifest lists`,
      };
    }
    if (entry.sha256 !== line.sha256) {
      return {
        reason: 'archive_file_altered',
        file: line.file,
        detail: `${line.file}'s manifest gives another SHA-256 than the live log recorded`,
      };
    }
  }
  const events = new Map<number, { text: string; source: string }>();
  const seals = new Map<number, { text: string; source: string }>();
  const checkpoints = new Map<string, string>();
  const treeHeads = new Map<string, string>();
  const malformed: Array<{ text: string; source: string }> = [];
  // Format 2 (export-lines.ts): the export's format line leads; a frontier is kept by its size.
  let format: { text: string; source: string } | undefined;
  const frontiers = new Map<number, { text: string; source: string }>();
  const add = (text: string, source: string): string | undefined => {
    if (text.trim() === '') return undefined;
    const line = parseLine(text);
    if (!line) {
      malformed.push({ text, source }); // left for the verifier to name
      return undefined;
    }
    if (line.type === 'format') {
      if (source === 'export') format = { text, source };
      return undefined;
    }
    if (line.type === 'frontier') {
      frontiers.set(Number(line.tree_size), { text, source });
      return undefined;
    }
    if (line.type === 'event') {
      const held = events.get(line.sequence);
      if (held && held.text !== text) {
        return `sequence ${line.sequence} differs between ${held.source} and ${source}`;
      }
      events.set(line.sequence, { text, source });
    } else if (line.type === 'seal') {
      seals.set(line.first_sequence, { text, source });
    } else if (line.type === 'checkpoint') {
      if (!checkpoints.has(line.jws)) checkpoints.set(line.jws, source);
    } else if (line.type === 'tree-head') {
      if (!treeHeads.has(text)) treeHeads.set(text, source);
    }
    return undefined;
  };
  for (const entry of entries.filter((candidate) => candidate.space_id === spaceId)) {
    const read = await readArchiveFile(dir, entry);
    if (!read) {
      return {
        reason: 'archive_file_missing',
        file: entry.file,
        detail: `${entry.file} is listed in its manifest but not in the folder`,
      };
    }
    if (!read.intact) {
      return {
        reason: 'archive_file_altered',
        file: entry.file,
        detail: `${entry.file} does not hash to the SHA-256 of its manifest`,
      };
    }
    for (const text of read.lines) {
      const conflict = add(text, entry.file);
      if (conflict) return { reason: 'archive_file_altered', file: entry.file, detail: conflict };
    }
  }
  for (const text of exportLines) {
    const conflict = add(text, 'export');
    if (conflict) return { reason: 'archive_file_altered', file: 'export', detail: conflict };
  }
  const lines: string[] = format ? [format.text] : [];
  const sources: string[] = format ? [format.source] : [];
  // The frontier the merged events start from (none when they start at the first).
  const start = frontiers.get(Math.min(...events.keys()) - 1);
  if (start) {
    lines.push(start.text);
    sources.push(start.source);
  }
  for (const sequence of [...events.keys()].sort((a, b) => a - b)) {
    const seal = seals.get(sequence);
    if (seal) {
      lines.push(seal.text);
      sources.push(seal.source);
    }
    const event = events.get(sequence)!;
    lines.push(event.text);
    sources.push(event.source);
  }
  const ordered = [...checkpoints].sort(
    ([a], [b]) => (checkpointNumber(a) ?? 0) - (checkpointNumber(b) ?? 0),
  );
  for (const [jws, source] of ordered) {
    lines.push(JSON.stringify({ type: 'checkpoint', jws }));
    sources.push(source);
  }
  for (const [text, source] of treeHeads) {
    lines.push(text);
    sources.push(source);
  }
  for (const { text, source } of malformed) {
    lines.push(text);
    sources.push(source);
  }
  return { lines, sources };
}

function parseLine(text: string): ExportLine | undefined {
  try {
    return JSON.parse(text) as ExportLine;
  } catch {
    return undefined;
  }
}

function firstEventSpace(lines: ReadonlyArray<ExportLine | undefined>): string | undefined {
  for (const line of lines) {
    if (line?.type === 'event' && typeof line.event.space_id === 'string') {
      return line.event.space_id;
    }
  }
  return undefined;
}

/** The events of one archived partition, every space's, as the log tree's check reads them. */
export interface ArchivedPartition {
  /** In commit-safe order (transaction, then position), as the log tree's leaves run. */
  readonly events: readonly RecordedEvent[];
  /** Files of format 2 whose frontier, events and heads made one space tree's roots. */
  readonly filesChecked: number;
}

/** One file of an archived partition as read back (undefined: not in the folder). */
export interface ArchivedFileRead {
  readonly file: string;
  readonly read: { readonly lines: readonly string[]; readonly intact: boolean } | undefined;
}

/**
 * Judges the files of one archived partition as read back (the log recorded them and their
 * SHA-256): a file absent or not hashing to what the log recorded fails, named; a file of format 2
 * must, on its own, extend its frontier by its events to the root of each space-tree head it holds
 * (signed by the audit key, with `publicKey`). Returns the events of all its files in commit-safe
 * order, whose leaves extend the log tree (log-tree.ts).
 */
export function checkArchivedPartition(
  files: readonly ArchivedFileRead[],
  /** Where the files were looked for, to name it. */
  dir: string,
  /** The log's leaves (its redaction bound). */
  leaves: EventLeaves,
  publicKey?: KeyObject,
): ArchivedPartition | (ArchiveProblem & { readonly detail: string }) {
  const events: RecordedEvent[] = [];
  let filesChecked = 0;
  for (const { file, read } of files) {
    if (!read) {
      return {
        reason: 'archive_file_missing',
        file,
        detail: `${file} is recorded as archived but not in ${dir}`,
      };
    }
    if (!read.intact) {
      return {
        reason: 'archive_file_altered',
        file,
        detail: `${file} does not hash to the SHA-256 the log recorded for it`,
      };
    }
    if (exportFormat(read.lines) === EXPORT_FORMAT) {
      const verdict = checkTreeExport(read.lines, { leaves, publicKey, allowUnanchoredTail: true });
      if (!verdict.ok) return { reason: 'archive_file_altered', file, detail: verdict.detail };
      filesChecked += 1;
    }
    for (const text of read.lines) {
      const line = parseLine(text);
      if (line?.type === 'event') events.push(exportedEvent(line));
    }
  }
  events.sort((a, b) => compareLogPositions(a, b));
  return { events, filesChecked };
}
