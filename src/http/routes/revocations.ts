import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema.js';
import { revocationList as listRevocations } from '../../projections/credential-queries.js';
import { SPACE_ID_PATTERN } from '../authentication.js';
import { validate } from '../validate.js';
import { route, type Route } from '../route.js';
import { revocationList, type Body } from '../openapi/responses.js';

const query = z.object({
  space_id: z.string().regex(SPACE_ID_PATTERN, 'expected 1-128 letters, digits, or _ . : -'),
});

/** How long verifiers and caches may keep the list (seconds); revocations reach them by then. */
export const REVOCATION_LIST_MAX_AGE = 30;

/**
 * GET /v1/revocations?space_id=: what an offline verifier of that space must reject, public like
 * a CRL (it holds no secret). See docs/api.md for how to combine it with the JWKS.
 */
export function revocationRoutes(
  db: Kysely<Database>,
  longestLifetimeSeconds: number,
): readonly Route[] {
  return [
    route({
      method: 'get',
      path: '/v1/revocations',
      operationId: 'listRevocations',
      tag: 'Verification',
      summary: 'What an offline verifier of the space must reject (cacheable for 30 s)',
      caller: 'public',
      query,
      responses: [{ status: 200, description: 'The revocation list', schema: revocationList }],
      errors: ['invalid_request'],
      dialect: 'problem',
      async handle(ctx) {
        const { space_id: spaceId } = validate(query, ctx.query, 'query');
        const list = await listRevocations(db, spaceId, longestLifetimeSeconds);
        ctx.set('Cache-Control', `public, max-age=${REVOCATION_LIST_MAX_AGE}`);
        ctx.body = {
          space_id: spaceId,
          generated_at: new Date().toISOString(),
          ...list,
        } satisfies Body<typeof revocationList>;
      },
    }),
  ];
}
