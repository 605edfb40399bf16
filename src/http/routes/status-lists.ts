import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { statusListToken, STATUS_LIST_TTL_SECONDS } from '../../commands/token/status-list.js';
import type { Database } from '../../db/schema.js';
import { NotFoundError } from '../../errors/errors.js';
import { statusListEntries } from '../../projections/status-list-entries.js';
import { SPACE_ID_PATTERN } from '../authentication.js';
import { route, type Route } from '../route.js';

const path = z.object({
  space_id: z.string().regex(SPACE_ID_PATTERN, 'expected 1-128 letters, digits, or _ . : -'),
  list: z.string().regex(/^[A-Za-z0-9_-]{22}$/, 'expected a list id: 22 base64url characters'),
});

// A list as last built, for a few seconds: a flood of verifiers costs one build per list, and
// one build in flight however many ask at once; bounded, the least recently built evicted first.
const BUILT_MS = 5000;
const LISTS_HELD = 10_000;

/**
 * GET /spaces/{space_id}/statuslists/{list}: a space's Token Status List as `statuslist+jwt`
 * (draft-ietf-oauth-status-list §8), the list a token's `status.status_list.uri` names; public.
 */
export function statusListRoutes(commands: CommandContext, db: Kysely<Database>): readonly Route[] {
  const built = new Map<string, { readonly at: number; readonly jwt: Promise<string> }>();
  const build = (spaceId: string, list: string) => {
    const key = `${spaceId} ${list}`;
    const hit = built.get(key);
    if (hit && Date.now() - hit.at < BUILT_MS) return hit.jwt;
    const jwt = statusListEntries(db, spaceId, list).then((entries) =>
      statusListToken(commands, spaceId, list, entries),
    );
    built.delete(key);
    built.set(key, { at: Date.now(), jwt });
    // A failed build is not kept: the next asker tries again.
    jwt.catch(() => built.get(key)?.jwt === jwt && built.delete(key));
    if (built.size > LISTS_HELD) built.delete(built.keys().next().value!);
    return jwt;
  };
  return [
    route('get', '/spaces/:space_id/statuslists/:list', 'public', {
      operationId: 'statusList',
      tag: 'Verification',
      summary: "A space's Token Status List, signed (draft-ietf-oauth-status-list)",
      description:
        "Each token's `status.status_list` names a list and an index in it: 1 is INVALID (revoked, voided through a token or credential it came from, or expired), 0 VALID. Signed with the space's keys (its own issuer, or the shared one); `ttl` says when to fetch it again. A list's entries appear within the projector's lag of their issuance.",
      params: path,
      responses: [
        {
          status: 200,
          description: 'The status list token',
          mediaType: 'application/statuslist+jwt',
        },
      ],
      errors: ['invalid_request', 'not_found'],
      async handle(ctx, _auth, { params: { space_id: spaceId, list } }) {
        // Only a list a replica opened for this space is looked up: a made-up id costs no query.
        if (!commands.statusSlots.minted(spaceId, list)) {
          throw new NotFoundError('no such status list in this space');
        }
        const jwt = await build(spaceId, list);
        ctx.set('Cache-Control', `public, max-age=${STATUS_LIST_TTL_SECONDS}`);
        ctx.type = 'application/statuslist+jwt';
        ctx.body = jwt;
      },
    }),
  ];
}
