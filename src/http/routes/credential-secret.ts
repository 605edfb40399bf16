import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { rotateSecret } from '../../commands/credential/change.js';
import { rotatedSecret, type Body } from '../openapi/responses.js';
import { answerNoStore, spaceChange } from '../respond.js';
import { route, type Route } from '../route.js';
import { validate } from '../validate.js';
import { clientPath, common, namedCredential } from './credential-path.js';

const rotateBody = z.object({
  overlap_seconds: z.number().int().min(0).max(86_400).default(3600),
});
// IETF httpapi Idempotency-Key draft: an opaque string; printable ASCII keeps it out of trouble.
const idempotencyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .regex(/^[\x21-\x7e]{8,255}$/, 'expected 8-255 printable ASCII characters (a UUID will do)')
    .optional()
    .describe(
      'Retries with the same key within IDEMPOTENCY_KEY_TTL_SECONDS get the first response (the same new secret) instead of a second rotation',
    ),
});
/** POST /v1/credential/:client_id/secret: a new secret, idempotent under an Idempotency-Key. */
export function rotateSecretRoute(commands: CommandContext): Route {
  return route('post', '/v1/credential/:client_id/secret', 'space-change', {
    ...common,
    operationId: 'rotateSecret',
    summary: 'A new secret; the previous one stays valid for overlap_seconds',
    params: clientPath,
    headers: idempotencyHeader,
    body: { schema: rotateBody, media: ['json'], optional: true },
    responses: [
      {
        status: 200,
        description: 'The new secret, shown once (again only to a retry with its Idempotency-Key)',
        schema: rotatedSecret,
      },
    ],
    errors: ['not_found', 'conflict', 'idempotency_key_reused'],
    async handle(ctx, { spaceId, actor }, input) {
      const clientId = namedCredential(ctx);
      const sent = ctx.get('Idempotency-Key');
      const headers = validate(
        idempotencyHeader,
        { 'Idempotency-Key': sent === '' ? undefined : sent },
        'header',
      );
      const { body } = input;
      const rotated = await rotateSecret(commands, {
        ...spaceChange(ctx, { spaceId, actor }),
        clientId,
        overlapSeconds: body.overlap_seconds,
        idempotencyKey: headers['Idempotency-Key'],
        actor,
      });
      answerNoStore(ctx, {
        client_id: clientId,
        client_secret: rotated.clientSecret,
        previous_secret_expires_at: rotated.previousSecretExpiresAt.toISOString(),
      } satisfies Body<typeof rotatedSecret>);
    },
  });
}
