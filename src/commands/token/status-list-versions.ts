import { serviceMetadata, streams } from '../../domain/events.js';
import {
  decidePublishList,
  type ListEntries,
  type PublishedList,
  type PublishList,
} from '../../domain/status-list/decide.js';
import { NotFoundError, UnavailableError } from '../../errors/errors.js';
import type { StatusListVersions } from '../../projections/status-list-versions.js';
import type { CommandContext } from '../context.js';
import { handle, type Decider } from '../handle.js';
import { SERVICE_ACTOR } from '../signing-key/actor.js';

/** What publishing a version uses: the log, ids, and the list's versions read from it. */
export type PublishPorts = Pick<CommandContext, 'events' | 'ids'>;

type Publish = PublishList & { readonly listId: string };
type Served = { readonly served: PublishedList };
type Last = PublishedList & { readonly settled?: boolean };

// The list's stream is keyed: two replicas publishing at once, the second takes the first's.
const publisher = (
  versions: StatusListVersions,
): Decider<Publish, Last | undefined, 'ended', Served> => ({
  stream: ({ spaceId, listId }) => ({ spaceId, stream: streams.statusList(spaceId, listId) }),
  load: async ({ spaceId, listId }) => {
    const last = await versions.last(spaceId, listId);
    return last
      ? { state: { ...last.published, settled: last.settled }, version: last.version }
      : { state: undefined };
  },
  decide: decidePublishList,
  evolve: (_state, event) => event.data as PublishedList,
  refusals: {
    ended: () =>
      new NotFoundError('every token of this status list has expired: it is no longer served'),
  },
  conflict: { then: 'settled', message: 'another replica published the list meanwhile' },
});

/**
 * The version of a list to serve, logged before it is: the one just built and signed when it
 * says something new ({@link decidePublishList}), else the last one published, by any replica.
 */
export async function publishStatusList(
  ctx: PublishPorts,
  versions: StatusListVersions,
  spaceId: string,
  built: PublishedList,
  entries: ListEntries,
): Promise<PublishedList> {
  const eventId = ctx.ids.eventId();
  const metadata = serviceMetadata(SERVICE_ACTOR.actor, eventId, SERVICE_ACTOR.origin);
  const listId = built.list_id;
  const command = { eventId, metadata, spaceId, listId, built, entries, now: built.iat };
  // Builds take turns in whichever request began them: the append names no request, so it is
  // bound by no one's deadline.
  const { events, facts } = await handle(ctx.events, publisher(versions), command);
  if (events.length > 0 || facts.served !== built) return facts.served;
  // Another replica's version went first: that one is logged, so it is the one served.
  const last = await versions.last(spaceId, built.list_id);
  if (!last) throw new UnavailableError('the status list could not be published; retry shortly');
  return last.published;
}
