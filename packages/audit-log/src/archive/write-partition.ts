import { readArchiveFile, type ArchiveFile, type ArchiveManifest } from '../archive-folder.js';
import { checkTreeExport } from '../check/tree-export.js';
import type { EventLeaves } from '../event-leaf.js';
import type { ExportLine } from '../export-lines.js';
import { writeArchiveFile, writeManifest, type WrittenArchiveFile } from './write-files.js';

/** One space's share of a partition: how many events it holds there, and its export of them. */
export interface PartitionShare {
  readonly spaceId: string;
  readonly events: number;
  readonly lines: () => AsyncIterable<ExportLine>;
}

/** A partition's files written, read back and verified: what its archive event records. */
export interface WrittenPartition {
  readonly manifest: ArchiveManifest;
  readonly manifestSha256: string;
  readonly written: readonly WrittenArchiveFile[];
}

/**
 * Writes each space's share of a partition to `dir` (gzipped NDJSON of the export's format 2,
 * files created exclusively) and its manifest, then reads every file back and verifies it before
 * anything may be dropped: intact, holding the share's events, and, judged alone as an export of
 * format 2, running on from its frontier to the roots of the heads it holds. A string says what
 * is wrong with the first file that fails.
 */
export async function writePartition(
  dir: string,
  partition: { readonly name: string; readonly startsAt: Date; readonly endsAt: Date },
  shares: readonly PartitionShare[],
  leaves: EventLeaves,
): Promise<WrittenPartition | string> {
  const written: WrittenArchiveFile[] = [];
  for (const share of shares) {
    written.push(await writeArchiveFile(dir, partition.name, share.spaceId, share.lines()));
  }
  const files: ArchiveFile[] = written.map((file) => file.entry);
  const manifest = {
    partition: partition.name,
    starts_at: Number.isFinite(Number(partition.startsAt))
      ? partition.startsAt.toISOString()
      : '-infinity',
    ends_at: partition.endsAt.toISOString(),
    events: shares.reduce((sum, share) => sum + share.events, 0),
    files,
  };
  const manifestSha256 = await writeManifest(dir, manifest);
  for (const file of files) {
    const expected = shares.find((share) => share.spaceId === file.space_id)!.events;
    const read = await readArchiveFile(dir, file);
    const problem = !read?.intact
      ? 'does not read back as written'
      : file.events !== expected
        ? `holds ${file.events} events of the ${expected} in the partition`
        : treeProblem(read.lines, leaves);
    if (problem) return `${file.file}: ${problem}`;
  }
  return { manifest, manifestSha256, written };
}

/**
 * What is wrong with an archive file read back, judged as an export of format 2 on its own: its
 * sequences run on from its frontier, and its events make the roots of the heads it holds.
 */
function treeProblem(lines: readonly string[], leaves: EventLeaves): string | undefined {
  const verdict = checkTreeExport(lines, { leaves, allowUnanchoredTail: true });
  return verdict.ok ? undefined : `${verdict.reason}: ${verdict.detail}`;
}
