import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { statusListToken, STATUS_LIST_TTL_SECONDS } from '../../commands/token/status-list.js';
import type { Logger } from 'pino';
import type { Database } from '../../db/schema.js';
import { BoundedCache } from '../../crypto/bounded-cache.js';
import { BuildTurns } from '../build-turns.js';
import { NotFoundError } from '../../errors/errors.js';
import { statusListReads } from '../../projections/status-list-entries.js';
import { statusListVersions } from '../../projections/status-list-versions.js';
import { publishStatusList } from '../../commands/token/status-list-versions.js';
import { validAt } from '../../domain/status-list/decide.js';
import { SPACE_ID_PATTERN } from '../authentication.js';
import { route, type Route } from '../route.js';

const path = z.object({
  space_id: z.string().regex(SPACE_ID_PATTERN, 'expected 1-128 letters, digits, or _ . : -'),
  list: z.string().regex(/^[A-Za-z0-9_-]{22}$/, 'expected a list id: 22 base64url characters'),
});

// Historical resolution (draft §8.4): the published version valid at `time`, from the log.
const query = z.object({
  time: z
    .string()
    .regex(/^[0-9]{1,12}$/, 'expected a unix timestamp in seconds')
    .optional(),
});

// A list is built again once its copy is 5 s old; meanwhile the copy is served while the new one
// is built, as long as a verifier caching it for its ttl still holds it before its exp. Builds
// take turns by space, each space's at most a quarter of the process's time (BuildTurns); past
// 32 waiting (2 of one space), or 10 s, a list never built is 503.
const FRESH_MS = 5000;
const STALE_MARGIN_MS = (STATUS_LIST_TTL_SECONDS + 10) * 1000;
// A build that failed (the projector behind, the database away) is not tried again this soon.
const FAILED_MS = 2000;
const TURNS = { maxWaiting: 32, maxWaitingPerSpace: 2, share: 0.25, maxWaitMs: 10_000 };
const LISTS_HELD = 1000;
// Historical reads take turns of their own, so a flood of them never delays a list's builds;
// an answer for a time past every version's end (exp is at most 120 s after iat) never changes.
const PAST_TURNS = { maxWaiting: 16, maxWaitingPerSpace: 2, share: 0.1, maxWaitMs: 5000 };
const SETTLED_SECONDS = 130;
// A time with no version an hour past every version then: none will come.
const MISSED_SECONDS = SETTLED_SECONDS + 3600;
const ENDED_HELD_MS = 600_000;

/** A list as this process holds it: when it was last checked, and the logged version it serves. */
interface Held {
  readonly builtAt: number;
  readonly expMs: number;
  readonly jwt: string;
}

/**
 * GET /spaces/{space_id}/statuslists/{list}: a space's Token Status List as `statuslist+jwt`
 * (draft-ietf-oauth-status-list §8), the list a token's `status.status_list.uri` names; public.
 */
export function statusListRoutes(
  commands: CommandContext,
  db: Kysely<Database>,
  logger?: Logger,
): readonly Route[] {
  const reads = statusListReads(db);
  const versions = statusListVersions(db);
  const held = new BoundedCache<string, Held>(LISTS_HELD);
  const failed = new BoundedCache<string, { readonly at: number; readonly error: unknown }>(
    LISTS_HELD,
  );
  // Lists whose tokens all expired: not built again here for a while (a clock put right since
  // is heard within ENDED_HELD_MS).
  const ended = new BoundedCache<string, { readonly at: number; readonly error: NotFoundError }>(
    LISTS_HELD,
  );
  const turns = new BuildTurns<Held>(TURNS);
  const pastTurns = new BuildTurns<string>(PAST_TURNS);
  const past = new BoundedCache<string, string>(LISTS_HELD);
  const pastList = async (spaceId: string, listId: string, at: number) => {
    const key = `${spaceId} ${listId} ${at}`;
    const known = past.get(key);
    if (known !== undefined) return known;
    const jwt = await pastTurns.run(spaceId, key, async () => {
      const version = await versions.asOf(spaceId, listId, at);
      return version && validAt(version, at) ? version.jwt : '';
    });
    // A miss is kept only long after: a version committed late may yet answer a time missed now.
    const age = Date.now() / 1000 - at;
    if (age > (jwt ? SETTLED_SECONDS : MISSED_SECONDS)) past.set(key, jwt);
    return jwt;
  };
  const build = async (key: string, list: Parameters<typeof statusListToken>[2]) => {
    try {
      const { built, unreadable, entries } = await statusListToken(commands, reads, list);
      if (unreadable > 0) logger?.warn({ ...list, unreadable }, 'status list entries unreadable');
      // Served only once logged: what a verifier got at any time is in the log.
      const served = await publishStatusList(commands, versions, list.spaceId, built, entries);
      const copy = { builtAt: Date.now(), expMs: served.exp * 1000, jwt: served.jwt };
      held.set(key, copy);
      return copy;
    } catch (error) {
      if (error instanceof NotFoundError) ended.set(key, { at: Date.now(), error });
      failed.set(key, { at: Date.now(), error });
      throw error;
    }
  };
  const rebuild = (key: string, list: Parameters<typeof statusListToken>[2]) => {
    const failure = failed.get(key);
    if (failure && Date.now() - failure.at < FAILED_MS) return Promise.reject(failure.error);
    failed.delete(key);
    return turns.run(list.spaceId, key, () => build(key, list));
  };
  const listOf = async (list: Parameters<typeof statusListToken>[2]): Promise<Held> => {
    const key = `${list.spaceId} ${list.listId}`;
    const over = ended.get(key);
    if (over && Date.now() - over.at < ENDED_HELD_MS) throw over.error;
    const copy = held.get(key);
    if (copy && Date.now() - copy.builtAt < FRESH_MS) return copy;
    const fresh = rebuild(key, list);
    if (!copy || Date.now() >= copy.expMs - STALE_MARGIN_MS) return fresh;
    fresh.catch(() => undefined);
    return copy;
  };
  return [
    route('get', '/spaces/:space_id/statuslists/:list', 'public', {
      operationId: 'statusList',
      tag: 'Verification',
      summary: "A space's Token Status List, signed (draft-ietf-oauth-status-list)",
      description:
        "Each token's `status.status_list` names a list and an index in it: 1 is INVALID (revoked, or voided through a token or credential it came from), 0 VALID. Signed by the ring that signed its tokens (the space's own, or the shared one); `ttl` says when to fetch it again. Every version served is first logged as a `status-list-published` event, so `?time=<unix seconds>` (historical resolution) answers the version that was valid then, or 404 when none was (or it is archived). 503 while the projector is more than 5 s behind the log.",
      params: path,
      query,
      responses: [
        {
          status: 200,
          description: 'The status list token',
          mediaType: 'application/statuslist+jwt',
        },
      ],
      errors: ['invalid_request', 'not_found', 'unavailable'],
      async handle(ctx, _auth, { params: { space_id: spaceId, list: listId }, query: { time } }) {
        // Public and secret-free: a browser-based verifier may read it (§8.1, CORS).
        ctx.set('Access-Control-Allow-Origin', '*');
        // Only a list a replica opened for this space is looked up: a made-up id costs no query.
        const ring = commands.statusSlots.ringOf(spaceId, listId);
        if (!ring) throw new NotFoundError('no such status list in this space');
        ctx.type = 'application/statuslist+jwt';
        if (time !== undefined) {
          // A time to come has no version yet: the current one may still change before it.
          if (Number(time) > Date.now() / 1000) {
            throw new NotFoundError(
              'that time has not come: ask without time for the current list',
            );
          }
          const jwt = await pastList(spaceId, listId, Number(time));
          if (!jwt) throw new NotFoundError('no version of this list was valid at that time');
          // A past version never changes; one of the last minutes may yet be followed by another.
          ctx.set('Cache-Control', 'public, max-age=60');
          ctx.body = jwt;
          return;
        }
        const { jwt, builtAt, expMs } = await listOf({ spaceId, listId, ring });
        // Kept downstream for what is left of its ttl since checked, and never so long that a
        // verifier caching it for its ttl would hold it past its exp.
        const age = Math.floor((Date.now() - builtAt) / 1000);
        const left = Math.floor((expMs - Date.now()) / 1000) - STATUS_LIST_TTL_SECONDS;
        const maxAge = Math.max(0, Math.min(STATUS_LIST_TTL_SECONDS - age, left));
        ctx.set('Cache-Control', `public, max-age=${maxAge}`);
        ctx.set('Age', String(age));
        ctx.body = jwt;
      },
    }),
  ];
}
