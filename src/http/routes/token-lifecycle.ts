import { z } from 'zod';
import { atEndpoint, identifyClient } from '../../commands/client-authentication/identify.js';
import type { CommandContext } from '../../commands/context.js';
import { introspectToken } from '../../commands/token/introspect.js';
import { revokeToken } from '../../commands/token/revoke.js';
import { clientProofOf } from '../authentication.js';
import { requestMetadata } from '../request-context.js';
import { route, type Route } from '../route.js';
import type { RequestContext } from '../state.js';
import { clientActor } from '../../domain/actors.js';
import { validate } from '../validate.js';
import { emptyObject, introspection } from '../openapi/responses.js';

const tokenRequest = z.object({
  // Long enough for any token of ours; anything longer is not one.
  token: z.string().min(1, 'must not be empty').max(8192),
  token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
  client_assertion_type: z.string().optional(),
  client_assertion: z.string().optional(),
});

/** Authenticates the calling client and reads the token parameter. */
async function clientAndToken(commands: CommandContext, ctx: RequestContext) {
  const body = validate(tokenRequest, ctx.request.body, 'body');
  const proof = clientProofOf(ctx, body);
  ctx.state.clientId = proof.clientId;
  const origin = requestMetadata(ctx);
  const metadata = { actor: clientActor(proof.clientId), ...origin };
  const client = await identifyClient(commands, { as: 'client', proof }, atEndpoint(origin));
  return { client, token: body.token, metadata };
}

const lifecycle = {
  tag: 'Tokens',
  body: { schema: tokenRequest, media: ['form', 'json'] },
  errors: ['invalid_client', 'rate_limited'],
} as const;

/**
 * POST /v1/introspect (RFC 7662) and POST /v1/revoke (RFC 7009), form or JSON, the caller
 * authenticated as a client (HTTP Basic or client_id/client_secret in the body).
 */
export function tokenLifecycleRoutes(commands: CommandContext): readonly Route[] {
  return [
    route('post', '/v1/introspect', 'client', {
      ...lifecycle,
      operationId: 'introspectToken',
      summary: "RFC 7662: whether a token of the caller's space is active, and its claims",
      responses: [{ status: 200, description: 'Introspection', schema: introspection }],
      async handle(ctx) {
        const { client, token } = await clientAndToken(commands, ctx);
        ctx.set('Cache-Control', 'no-store');
        ctx.set('Pragma', 'no-cache');
        ctx.body = await introspectToken(commands, { client, token });
      },
    }),
    route('post', '/v1/revoke', 'client', {
      ...lifecycle,
      operationId: 'revokeToken',
      summary:
        "RFC 7009: revoke a token of the caller's space (a private token takes its public tokens)",
      responses: [
        { status: 200, description: 'Revoked, or nothing to revoke', schema: emptyObject },
      ],
      async handle(ctx) {
        const { client, token, metadata } = await clientAndToken(commands, ctx);
        await revokeToken(commands, { client, token, metadata });
        ctx.set('Cache-Control', 'no-store');
        ctx.status = 200;
        ctx.body = {};
      },
    }),
  ];
}
