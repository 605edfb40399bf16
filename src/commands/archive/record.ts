import { archivePlace, decideArchive, type ArchiveCommand } from '../../domain/archive/decide.js';
import type { EventStore } from '#event-log/event-store.js';
import type { RecordedEvent } from '#event-log/types.js';
import { NOTHING } from '../recording.js';
import { handle } from '../handle.js';

/** What commits with `events-archived`: the archive's rows (audit-trail/archive/archive-writes.ts). */
export interface ArchiveRowWrites<Rows> {
  archived(rows: Rows): Promise<void>;
}

/** An archived partition's `events-archived`, its rows and the drop, through the one handler. */
export async function recordArchive<Rows>(
  store: Pick<EventStore<ArchiveRowWrites<Rows>>, 'append'>,
  command: ArchiveCommand & { readonly rows: Rows },
): Promise<readonly RecordedEvent[]> {
  const { partition } = command.archive;
  const handled = await handle(
    store,
    {
      stream: (archive: typeof command) => archivePlace(archive.archive.partition),
      load: () => NOTHING,
      decide: (archive: typeof command) => decideArchive(archive),
      evolve: (state) => state,
      // The files were verified against the partition: a refusal here is a fault, not an answer.
      refusals: { files_incomplete: () => new Error(`archive of ${partition}: files incomplete`) },
      inline: (writes, _state, archive) => writes.archived(archive.rows),
      conflict: { then: 'refuse', message: `archive of ${partition}: its event's stream exists` },
    },
    command,
  );
  return handled.events;
}
