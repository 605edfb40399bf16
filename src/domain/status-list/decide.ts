import { accept, type Decision } from '../decision.js';
import { commandEvent, type Asked, type DomainEvent, type EventData } from '../events.js';

/** A status list version as published: its event's data. */
export type PublishedList = EventData<'status-list-published'>;

/**
 * How long a published version is served again while nothing in it changed, seconds: with the
 * list's `ttl` (30 s) a verifier's copy is still before its `exp` (120 s). One version per list
 * a minute at most, while it is read, when nothing changes.
 */
export const REPUBLISH_AFTER_SECONDS = 60;

/** A freshly built and signed version, and when (seconds). */
export interface PublishList extends Asked {
  readonly spaceId: string;
  readonly built: PublishedList;
  readonly now: number;
}

/**
 * The list's last published version is served again while it says the same (its bits and its
 * key) and is young; otherwise the built one is published: every version served is a logged one.
 */
export function decidePublishList(
  command: PublishList,
  last: PublishedList | undefined,
): Decision<DomainEvent<'status-list-published'>, never, { readonly served: PublishedList }> {
  const { built, now } = command;
  if (
    last !== undefined &&
    last.lst_sha256 === built.lst_sha256 &&
    last.kid === built.kid &&
    last.ring === built.ring &&
    now >= last.iat &&
    now < last.iat + REPUBLISH_AFTER_SECONDS
  ) {
    return accept([], { served: last });
  }
  return accept([commandEvent(command, 'status-list-published', built)], { served: built });
}

/** The version a historical request (`?time=`) gets: valid at `time` (iat ≤ time < exp). */
export function validAt(version: PublishedList | undefined, time: number): boolean {
  return version !== undefined && version.iat <= time && time < version.exp;
}
