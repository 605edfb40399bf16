import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { issuePublicToken } from '../../commands/token/public/issue.js';
import { publicTokenFields } from '../../commands/token/public/token-exchange.js';
import { ACCESS_TOKEN_TYPE } from '../../commands/token/grants/answer.js';
import {
  authorizationDetailsParameter,
  requestedScopes,
  scopeParameter,
} from '../../commands/token/grants/scope-parameter.js';
import { spaceIdHeader } from '../authentication.js';
import { setRateLimitHeaders } from '../error-response.js';
import { requestMetadata } from '../request-context.js';
import { route, type Route } from '../route.js';
import { publicTokenResponse, type Body } from '../openapi/responses.js';

const issueBody = z.object({
  ...publicTokenFields,
  scope: scopeParameter,
  authorization_details: authorizationDetailsParameter,
});

/** POST /v1/issue: a private token buys a public token for one customer and segment. */
export function issueRoutes(commands: CommandContext): readonly Route[] {
  return [
    route('post', '/v1/issue', 'private-token', {
      operationId: 'issuePublicToken',
      tag: 'Tokens',
      summary: 'A public access token for one customer and segment, bought with a private token',
      spaceHeader: true,
      body: { schema: issueBody, media: ['json'] },
      responses: [{ status: 200, description: 'The public token', schema: publicTokenResponse }],
      errors: [
        'invalid_token',
        'invalid_scope',
        'insufficient_scope',
        'rate_limited',
        'invalid_dpop_proof',
        'invalid_authorization_details',
      ],
      async handle(ctx, { privateToken, actor, dpop }, input) {
        const spaceId = spaceIdHeader(ctx);
        const { body } = input;
        const issued = await issuePublicToken(commands, {
          spaceId,
          customerId: body.customer_id,
          segmentId: body.segment_id,
          privateToken,
          metadata: { actor, ...requestMetadata(ctx) },
          dpop,
          bindTo: body.dpop_jkt,
          scopes: requestedScopes(body.scope),
          ...(body.may_act === undefined ? {} : { mayAct: body.may_act }),
          authorizationDetails: body.authorization_details,
        });
        ctx.set('Cache-Control', 'no-store');
        setRateLimitHeaders(ctx, issued.rateLimit);
        ctx.body = {
          token: issued.token,
          access_token: issued.token,
          token_type: issued.tokenType,
          issued_token_type: ACCESS_TOKEN_TYPE,
          expires_in: issued.expiresIn,
          ...(issued.scope ? { scope: issued.scope } : {}),
        } satisfies Body<typeof publicTokenResponse>;
      },
    }),
  ];
}
