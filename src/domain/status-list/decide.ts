import { accept, refuse, type Decision } from '../decision.js';
import { commandEvent, type Asked, type DomainEvent, type EventData } from '../events.js';

/** A status list version as published: its event's data. */
export type PublishedList = EventData<'status-list-published'>;

/**
 * How long a published version is served again while nothing in it changed, seconds: with the
 * list's `ttl` (30 s) a verifier's copy is still before its `exp` (120 s). One version per list
 * a minute at most, while it is read, when nothing changes.
 */
export const REPUBLISH_AFTER_SECONDS = 60;
/** How far another replica's clock may be ahead of this one's and its version still be served. */
const CLOCK_SKEW_SECONDS = 30;
/** A list takes the tokens of one hour (src/crypto/status-slots.ts), seconds. */
export const STATUS_LIST_PERIOD_SECONDS = 3600;
/**
 * Past its tokens' last `exp` by this much, a list is no longer served (draft §13.1): by then its
 * hour is over and any token it took is projected (within 5 s), whatever a replica's clock says.
 */
export const ENDED_AFTER_SECONDS = STATUS_LIST_PERIOD_SECONDS + 300;
/** What the list was built from: its entries, and the latest `exp` among those read. */
export interface ListEntries {
  readonly count: number;
  readonly unreadable: number;
  /** Undefined when no entry could be read. */
  readonly latestExp?: number;
}

/** A freshly built and signed version, and when (seconds). */
export interface PublishList extends Asked {
  readonly spaceId: string;
  readonly built: PublishedList;
  readonly entries: ListEntries;
  readonly now: number;
}

/**
 * Whether a list's tokens have all expired, so it is served no more and grows the log no more:
 * the latest `exp` of its entries, or of those its last version was judged from when none are
 * left (purged a day after expiry), past by {@link ENDED_AFTER_SECONDS}. A list with no entries
 * and none ever seen ends only once a version without any is minutes old by the database's
 * clock (`settled`): its first token is projected within seconds.
 */
export function listEnded(
  entries: ListEntries,
  last: (PublishedList & { readonly settled?: boolean }) | undefined,
  now: number,
): boolean {
  if (entries.unreadable > 0) return false;
  const latestExp = entries.count > 0 ? entries.latestExp : last?.latest_exp;
  if (latestExp !== undefined) return latestExp + ENDED_AFTER_SECONDS < now;
  return entries.count === 0 && last?.settled === true;
}

/**
 * The list's last published version is served again while it says the same (its bits and its
 * key) and is young; otherwise the built one is published: every version served is a logged one.
 * A list whose tokens all expired is `ended`: not served, nothing published.
 */
export function decidePublishList(
  command: PublishList,
  last: (PublishedList & { readonly settled?: boolean }) | undefined,
): Decision<DomainEvent<'status-list-published'>, 'ended', { readonly served: PublishedList }> {
  const { built, now } = command;
  if (listEnded(command.entries, last, now)) return refuse('ended');
  if (
    last !== undefined &&
    last.lst_sha256 === built.lst_sha256 &&
    last.kid === built.kid &&
    last.ring === built.ring &&
    now >= last.iat - CLOCK_SKEW_SECONDS &&
    now < last.iat + REPUBLISH_AFTER_SECONDS
  ) {
    const { settled: _, ...served } = last;
    return accept([], { served });
  }
  return accept([commandEvent(command, 'status-list-published', built)], { served: built });
}

/** The version a historical request (`?time=`) gets: valid at `time` (iat ≤ time < exp). */
export function validAt(version: PublishedList | undefined, time: number): boolean {
  return version !== undefined && version.iat <= time && time < version.exp;
}
