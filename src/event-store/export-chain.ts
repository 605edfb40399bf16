import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { selectLinksWithEvents } from './chain-rows.js';
import { canonicalEventBytes, chainHash } from './chain-link.js';
import { toRecordedEvent, type EventRow, type RecordedEvent } from './types.js';

/** One line of an audit export: an event with its hash-chain link. */
export interface ExportLine {
  readonly link_number: number;
  readonly previous_hash: string;
  readonly hash: string;
  /** The event exactly as its link covers it (see canonicalEventBytes). */
  readonly event: Record<string, unknown>;
}

/**
 * Sealed events of a space recorded in [from, to), in chain order, each with its link. Events not
 * yet sealed are not exported (the sealer runs within a second of commit).
 */
export async function* exportChain(
  db: Kysely<Database>,
  options: {
    readonly spaceId: string;
    readonly from: Date;
    readonly to: Date;
    readonly pageSize?: number;
  },
): AsyncGenerator<ExportLine> {
  let after = 0;
  for (;;) {
    const rows = await selectLinksWithEvents(db)
      .where('c.space_id', '=', options.spaceId)
      .where('e.recorded_at', '>=', options.from)
      .where('e.recorded_at', '<', options.to)
      .where('c.link_number', '>', after)
      .limit(options.pageSize ?? 1000)
      .execute();
    if (rows.length === 0) return;
    for (const row of rows) {
      const event = toRecordedEvent(row as unknown as EventRow);
      yield {
        link_number: row.link_number,
        previous_hash: row.previous_hash.toString('hex'),
        hash: row.hash.toString('hex'),
        event: JSON.parse(canonicalEventBytes(event).toString('utf8')) as Record<string, unknown>,
      };
      after = row.link_number;
    }
  }
}

/** Where an export stopped verifying. */
export type ExportVerdict =
  | { readonly ok: true; readonly lines: number; readonly gaps: number }
  | {
      readonly ok: false;
      readonly line: number;
      readonly linkNumber: number | null;
      readonly eventId: string | null;
      readonly reason: 'malformed_line' | 'hash_mismatch' | 'broken_link';
    };

/**
 * Verifies an export offline: every event must hash, with its previous hash, to its link; and
 * wherever two lines are consecutive links, the second must chain from the first. Gaps (links of
 * other spaces) are counted, not failed.
 */
export function verifyExportLines(lines: Iterable<string>): ExportVerdict {
  let lineNumber = 0;
  let verified = 0;
  let previous: ExportLine | undefined;
  let gaps = 0;
  for (const text of lines) {
    lineNumber += 1;
    if (text.trim() === '') continue;
    let line: ExportLine;
    let event: RecordedEvent;
    try {
      line = JSON.parse(text) as ExportLine;
      const row = line.event as unknown as EventRow & { recorded_at: string };
      event = toRecordedEvent({ ...row, recorded_at: new Date(row.recorded_at) });
    } catch {
      return {
        ok: false,
        line: lineNumber,
        linkNumber: null,
        eventId: null,
        reason: 'malformed_line',
      };
    }
    const at = { line: lineNumber, linkNumber: line.link_number, eventId: event.eventId };
    if (
      previous &&
      line.link_number === previous.link_number + 1 &&
      line.previous_hash !== previous.hash
    ) {
      return { ok: false, ...at, reason: 'broken_link' };
    }
    if (previous && line.link_number !== previous.link_number + 1) gaps += 1;
    if (chainHash(Buffer.from(line.previous_hash, 'hex'), event).toString('hex') !== line.hash) {
      return { ok: false, ...at, reason: 'hash_mismatch' };
    }
    previous = line;
    verified += 1;
  }
  return { ok: true, lines: verified, gaps };
}
