import Router from '@koa/router';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { issuePrivateToken } from '../../commands/issue-private-token.js';
import {
  InvalidClientError,
  InvalidRequestError,
  UnsupportedGrantTypeError,
} from '../../errors/errors.js';
import { basicCredentials } from '../authentication.js';
import { readBody } from '../body.js';
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
      const basic = basicCredentials(ctx);
      if (basic === 'malformed') throw new InvalidClientError();
      if (basic && (body.client_id || body.client_secret)) {
        throw new InvalidRequestError(
          'send client credentials either by HTTP Basic or in the body, not both',
        );
      }
      const clientId = basic?.clientId ?? body.client_id;
      const clientSecret = basic?.clientSecret ?? body.client_secret;
      const audience = body.audience ?? body.resource;
      const missing = [
        ...(clientId ? [] : [{ field: 'client_id', message: 'is required' }]),
        ...(clientSecret ? [] : [{ field: 'client_secret', message: 'is required' }]),
        ...(audience ? [] : [{ field: 'audience', message: 'is required' }]),
      ];
      if (missing.length > 0) {
        throw new InvalidRequestError(
          `body is invalid: ${missing.map((m) => `${m.field} ${m.message}`).join('; ')}`,
          missing,
        );
      }
      ctx.state.clientId = clientId;
      const issued = await issuePrivateToken(commands, {
        clientId: clientId!,
        clientSecret: clientSecret!,
        audience: audience!,
        metadata: { actor: `client:${clientId}`, ...requestMetadata(ctx) },
      });
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Pragma', 'no-cache');
      ctx.body = { access_token: issued.token, token_type: 'Bearer', expires_in: issued.expiresIn };
    },
  );
  return router;
}
