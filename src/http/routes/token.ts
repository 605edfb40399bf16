import Router from '@koa/router';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { issuePrivateToken } from '../../commands/issue-private-token.js';
import { UnsupportedGrantTypeError } from '../../errors/errors.js';
import { clientCredentialsShape, rawClientCredentials } from '../authentication.js';
import { readBody } from '../body.js';
import { setRateLimitHeaders } from '../error-response.js';
import { errorDialect, requestMetadata } from '../request-context.js';
import { validate } from '../validate.js';

const field = z.string().min(1, 'must not be empty').max(512);
const tokenRequestBody = z.object({
  grant_type: field,
  client_id: field.optional(),
  client_secret: field.optional(),
  audience: field.optional(),
  /** RFC 8707 name for the same thing; accepted so generic OAuth clients work. */
  resource: field.optional(),
});

const grantSchema = z.object({ ...clientCredentialsShape, audience: field });

/**
 * POST /v1/credential/token: the client_credentials grant (RFC 6749 §4.4). JSON as the spec says,
 * or form-encoded with client authentication in the body or by HTTP Basic.
 */
export function tokenRoutes(commands: CommandContext, bodyLimitBytes: number): Router {
  const router = new Router();
  router.post(
    '/v1/credential/token',
    errorDialect('oauth'),
    readBody(['json', 'form'], bodyLimitBytes),
    async (ctx) => {
      const body = validate(tokenRequestBody, ctx.request.body, 'body');
      if (body.grant_type !== 'client_credentials')
        throw new UnsupportedGrantTypeError(body.grant_type);
      // Wherever the client's credentials came from (body or Basic), all is checked as one.
      const grant = validate(
        grantSchema,
        { ...rawClientCredentials(ctx, body), audience: body.audience ?? body.resource },
        'body',
      );
      ctx.state.clientId = grant.client_id;
      const issued = await issuePrivateToken(commands, {
        clientId: grant.client_id,
        clientSecret: grant.client_secret,
        audience: grant.audience,
        metadata: { actor: `client:${grant.client_id}`, ...requestMetadata(ctx) },
      });
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Pragma', 'no-cache');
      setRateLimitHeaders(ctx, issued.rateLimit);
      ctx.body = { access_token: issued.token, token_type: 'Bearer', expires_in: issued.expiresIn };
    },
  );
  return router;
}
