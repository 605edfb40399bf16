import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { selectLinksWithEvents } from './chain-rows.js';
import { chainHash, GENESIS_HASH } from './chain-link.js';
import { toRecordedEvent, type EventRow } from '../event-store/types.js';

/** Where and how the chain stopped matching the log. */
export type ChainBreak = {
  readonly ok: false;
  readonly linkNumber: number;
  readonly globalPosition: number;
  readonly eventId: string | null;
  /**
   * event_altered: the event's bytes no longer hash to its link.
   * event_missing: the link names an event that is gone.
   * link_altered: the link's previous hash does not match the link before it.
   */
  readonly reason: 'event_altered' | 'event_missing' | 'link_altered';
};

/** The verdict of {@link verifyChain}. */
export type ChainVerdict = { readonly ok: true; readonly linksChecked: number } | ChainBreak;

/**
 * Recomputes every link from the events themselves and reports the first that does not match.
 * Catches edits made by someone who bypassed the append-only triggers (a superuser).
 */
export async function verifyChain(
  db: Kysely<Database>,
  pageSize = 5000,
  onPage?: (linksChecked: number) => void,
): Promise<ChainVerdict> {
  let previous = GENESIS_HASH;
  let checked = 0;
  for (;;) {
    const rows = await selectLinksWithEvents(db)
      .where('c.link_number', '>', checked)
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return { ok: true, linksChecked: checked };
    for (const row of rows) {
      const at = { linkNumber: Number(row.link_number), globalPosition: Number(row.link_position) };
      if (row.event_id === null) {
        return { ok: false, ...at, eventId: null, reason: 'event_missing' };
      }
      if (!row.previous_hash.equals(previous)) {
        return { ok: false, ...at, eventId: row.event_id, reason: 'link_altered' };
      }
      const event = toRecordedEvent(row as unknown as EventRow);
      if (!chainHash(previous, event).equals(row.hash)) {
        return { ok: false, ...at, eventId: row.event_id, reason: 'event_altered' };
      }
      previous = row.hash;
      checked = at.linkNumber;
    }
    onPage?.(checked);
  }
}
