import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { issuePublicToken } from '../../commands/token/issue-public.js';
import { spaceIdHeader } from '../authentication.js';
import { setRateLimitHeaders } from '../error-response.js';
import { requestMetadata } from '../request-context.js';
import { route, type Route } from '../route.js';
import { validate } from '../validate.js';
import { BODY_ERRORS } from '../openapi/operation.js';
import { publicTokenResponse, type Body } from '../openapi/responses.js';

const identifier = z.string().trim().min(1, 'must not be empty').max(256);
const issueBody = z.object({
  customer_id: identifier,
  segment_id: identifier,
  /**
   * RFC 9449 §10: bind the public token to this key (a browser's or an app's; its JWK SHA-256
   * thumbprint) instead of the DPoP proof's key, if any.
   */
  dpop_jkt: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, 'expected a JWK SHA-256 thumbprint (43 base64url characters)')
    .optional(),
});

/** The RFC 8693 name of what /v1/issue hands out. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** POST /v1/issue: a private token buys a public token for one customer and segment. */
export function issueRoutes(commands: CommandContext): readonly Route[] {
  return [
    route({
      method: 'post',
      path: '/v1/issue',
      operationId: 'issuePublicToken',
      tag: 'Tokens',
      summary: 'A public access token for one customer and segment, bought with a private token',
      caller: 'private-token',
      spaceHeader: true,
      body: { schema: issueBody, media: ['json'] },
      responses: [{ status: 200, description: 'The public token', schema: publicTokenResponse }],
      errors: [
        ...BODY_ERRORS,
        'invalid_token',
        'insufficient_scope',
        'rate_limited',
        'invalid_dpop_proof',
      ],
      dialect: 'bearer',
      async handle(ctx, { privateToken, actor, dpop }) {
        const spaceId = spaceIdHeader(ctx);
        const body = validate(issueBody, ctx.request.body, 'body');
        const issued = await issuePublicToken(commands, {
          spaceId,
          customerId: body.customer_id,
          segmentId: body.segment_id,
          privateToken,
          metadata: { actor, ...requestMetadata(ctx) },
          dpop,
          bindTo: body.dpop_jkt,
        });
        ctx.set('Cache-Control', 'no-store');
        setRateLimitHeaders(ctx, issued.rateLimit);
        ctx.body = {
          token: issued.token,
          access_token: issued.token,
          token_type: issued.tokenType,
          issued_token_type: ACCESS_TOKEN_TYPE,
          expires_in: issued.expiresIn,
        } satisfies Body<typeof publicTokenResponse>;
      },
    }),
  ];
}
