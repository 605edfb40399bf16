import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema.js';
import { revocationList as listRevocations } from '../../projections/credential-queries.js';
import { SPACE_ID_PATTERN } from '../authentication.js';
import { route, type Route } from '../route.js';
import { revocationList, type Body } from '../openapi/responses.js';
import { JWKS_MAX_AGE } from './jwks.js';

const query = z.object({
  space_id: z.string().regex(SPACE_ID_PATTERN, 'expected 1-128 letters, digits, or _ . : -'),
});

const CACHE_MS = 1000;
const CACHE_SPACES = 10_000;

/** How long verifiers and caches may keep the list (seconds); revocations reach them by then. */
export const REVOCATION_LIST_MAX_AGE = 30;

/**
 * GET /v1/revocations?space_id=: what an offline verifier of that space must reject, public like
 * a CRL (it holds no secret). See docs/api/server-integrators.md for how to combine it with the JWKS.
 */
export function revocationRoutes(
  db: Kysely<Database>,
  /** rotation-settings.revokedClientListedSeconds; keys stay listed as long, or a JWKS's age. */
  listedSeconds: number,
): readonly Route[] {
  // Per space, the list as last read, for at most a second: a flood of requests for one space
  // costs one query a second; bounded, the least recently built evicted first.
  const cache = new Map<
    string,
    { readonly at: number; readonly etag: string; readonly body: string }
  >();
  const listOf = async (spaceId: string) => {
    const hit = cache.get(spaceId);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit;
    const list = await listRevocations(
      db,
      spaceId,
      listedSeconds,
      Math.max(listedSeconds, JWKS_MAX_AGE),
    );
    const body = JSON.stringify({
      space_id: spaceId,
      generated_at: new Date().toISOString(),
      ...list,
    } satisfies Body<typeof revocationList>);
    // Over the content only: an unchanged list keeps its ETag when it is read again.
    const etag = `"${createHash('sha256').update(JSON.stringify(list)).digest('base64url')}"`;
    const entry = { at: Date.now(), etag, body };
    cache.delete(spaceId);
    cache.set(spaceId, entry);
    if (cache.size > CACHE_SPACES) cache.delete(cache.keys().next().value!);
    return entry;
  };
  return [
    route('get', '/v1/revocations', 'public', {
      operationId: 'listRevocations',
      tag: 'Verification',
      summary: 'What an offline verifier of the space must reject (cacheable for 30 s)',
      query,
      responses: [
        { status: 200, description: 'The revocation list', schema: revocationList },
        { status: 304, description: 'Unchanged since the ETag sent as If-None-Match' },
      ],
      errors: ['invalid_request'],
      async handle(ctx, _auth, { query: { space_id: spaceId } }) {
        const { etag, body } = await listOf(spaceId);
        ctx.set('Cache-Control', `public, max-age=${REVOCATION_LIST_MAX_AGE}`);
        ctx.set('ETag', etag);
        if (ctx.get('if-none-match') === etag) {
          ctx.status = 304;
          return;
        }
        ctx.type = 'application/json';
        ctx.body = body;
      },
    }),
  ];
}
