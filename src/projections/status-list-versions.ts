import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { parseEventData } from '../domain/events.js';
import type { PublishedList } from '../domain/status-list/decide.js';
import { streams } from '../domain/streams.js';

/** A list's published version and its place in the list's stream. */
export interface StoredVersion {
  readonly version: number;
  readonly published: PublishedList;
  /** Recorded five minutes ago or more, by the database's clock. */
  readonly settled: boolean;
}

/**
 * A status list's published versions, read from the log itself (its stream, by the hash index on
 * `stream_id`): the last one, and the one a historical request asks for. Archived partitions are
 * gone from here: a time before them is not served.
 */
export function statusListVersions(db: Kysely<Database>) {
  const read = async (spaceId: string, listId: string, at?: number) => {
    const streamId = streams.statusList(spaceId, listId).streamId;
    const row = await db
      .selectFrom('events')
      .select(['stream_position', 'data'])
      // Minutes old by the database's clock, the one clock every replica shares.
      .select(sql<boolean>`recorded_at < now() - interval '300 seconds'`.as('settled'))
      .where('stream_id', '=', streamId)
      .where('space_id', '=', spaceId)
      // Valid then: another replica's clock may have stamped a later position with an earlier iat.
      .$if(at !== undefined, (q) =>
        q
          .where(sql<number>`(data->>'iat')::bigint`, '<=', at!)
          .where(sql<number>`(data->>'exp')::bigint`, '>', at!),
      )
      .orderBy('stream_position', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      version: Number(row.stream_position),
      published: parseEventData('status-list-published', row.data),
      settled: row.settled,
    };
  };
  return {
    /** The list's last published version. */
    last: (spaceId: string, listId: string): Promise<StoredVersion | undefined> =>
      read(spaceId, listId),
    /** The last version published valid at `time` (epoch seconds): iat ≤ time < exp. */
    asOf: async (spaceId: string, listId: string, time: number) =>
      (await read(spaceId, listId, time))?.published,
  };
}

/** What publishing and historical requests read (its port in commands/token/status-list.ts). */
export type StatusListVersions = ReturnType<typeof statusListVersions>;
