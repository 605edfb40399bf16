import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { chainHash, GENESIS_HASH } from './chain-link.js';
import { compareLogPositions, sealEnd } from './chain-rows.js';
import { readLog } from '../event-store/read-log.js';
import { LOG_START, type RecordedEvent } from '../event-store/types.js';

/** Where and how the chain stopped matching the log. */
export type ChainBreak = {
  readonly ok: false;
  /** The seal whose range does not match; its events are the suspects. */
  readonly sealNumber: number;
  /** The global position of the seal's last event. */
  readonly lastPosition: number;
  /**
   * event_altered: the range holds as many events as sealed, but they no longer hash to the seal.
   * event_missing: the range holds fewer events than sealed (one was deleted or moved).
   * event_added: the range holds more events than sealed (one was slipped in behind it).
   * link_altered: the seal's previous hash does not match the seal before it.
   */
  readonly reason: 'event_altered' | 'event_missing' | 'event_added' | 'link_altered';
};

/** The verdict of {@link checkChain}. */
export type ChainVerdict =
  | {
      readonly ok: true;
      readonly eventsChecked: number;
      readonly sealsChecked: number;
      /** Seals of archived partitions, whose events were not in the database to check. */
      readonly archivedSeals: number;
    }
  | ChainBreak;

/**
 * Recomputes every seal from the events themselves, walking the log once in commit-safe order,
 * and reports the first that does not match. Catches edits made by someone who bypassed the
 * append-only triggers (a superuser). Events after the last seal are not yet sealed and not read.
 */
export async function checkChain(
  db: Kysely<Database>,
  pageSize = 5000,
  onPage?: (eventsChecked: number) => void,
): Promise<ChainVerdict> {
  let previous = GENESIS_HASH;
  let eventsChecked = 0;
  let sealsChecked = 0;
  let archivedSeals = 0;
  let after = LOG_START;
  let page: readonly RecordedEvent[] = [];
  let index = 0;
  /** The next event of the log, paging as it goes; undefined at the end. */
  const peek = async (): Promise<RecordedEvent | undefined> => {
    if (index < page.length) return page[index];
    const next = await readLog(db, { after, limit: pageSize });
    page = next.events;
    index = 0;
    after = next.last;
    return page[0];
  };
  // Seals of archived partitions: their events are in the archive files (verify-export
  // --archive-dir), so here only their place in the chain is checked.
  const archived = new Set(
    (await db.selectFrom('archived_ranges').select('starts_at').distinct().execute()).map((row) =>
      Number(row.starts_at),
    ),
  );
  for (;;) {
    const seals = await db
      .selectFrom('event_seals')
      .selectAll()
      .where('seal_number', '>', sealsChecked)
      .orderBy('seal_number')
      .limit(Math.max(1, Math.floor(pageSize / 10)))
      .execute();
    if (seals.length === 0) return { ok: true, eventsChecked, sealsChecked, archivedSeals };
    for (const seal of seals) {
      const end = sealEnd(seal);
      const at = { sealNumber: seal.seal_number, lastPosition: seal.last_position };
      if (!seal.previous_hash.equals(previous)) return { ok: false, ...at, reason: 'link_altered' };
      if (archived.has(Number(seal.partition_start))) {
        previous = seal.hash;
        sealsChecked = seal.seal_number;
        archivedSeals += 1;
        continue;
      }
      let hash = previous;
      let count = 0;
      for (let event = await peek(); event; event = await peek()) {
        const where = compareLogPositions(event, end);
        if (where > 0) break;
        hash = chainHash(hash, event);
        count += 1;
        index += 1;
      }
      if (count < seal.event_count) return { ok: false, ...at, reason: 'event_missing' };
      if (count > seal.event_count) return { ok: false, ...at, reason: 'event_added' };
      if (!hash.equals(seal.hash)) return { ok: false, ...at, reason: 'event_altered' };
      previous = seal.hash;
      eventsChecked += count;
      sealsChecked = seal.seal_number;
    }
    onPage?.(eventsChecked);
  }
}
