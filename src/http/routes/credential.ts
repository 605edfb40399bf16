import Router from '@koa/router';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { createCredential } from '../../commands/create-credential.js';
import type { LoginIdentity, LoginTokenVerifier } from '../../tokens/login-tokens.js';
import { requireLoginForSpace } from '../authentication.js';
import { readBody } from '../body.js';
import { errorDialect, requestMetadata } from '../request-context.js';
import { validate } from '../validate.js';

const createCredentialBody = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(200),
  description: z.string().trim().min(1, 'must not be empty').max(2000),
});

/** POST /v1/credential: a dashboard user creates a client credential in a space. */
export function credentialRoutes(
  commands: CommandContext,
  login: LoginTokenVerifier,
  bodyLimitBytes: number,
): Router {
  const router = new Router();
  router.post(
    '/v1/credential',
    errorDialect('bearer'),
    requireLoginForSpace(login),
    readBody(['json'], bodyLimitBytes),
    async (ctx) => {
      const body = validate(createCredentialBody, ctx.request.body, 'body');
      const user = ctx.state.user as LoginIdentity;
      const created = await createCredential(commands, {
        spaceId: ctx.state.spaceId as string,
        name: body.name,
        description: body.description,
        userSubject: user.subject,
        loginIssuer: user.issuer,
        metadata: { actor: `user:${user.subject}`, ...requestMetadata(ctx) },
      });
      ctx.state.clientId = created.clientId;
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        client_id: created.clientId,
        client_secret: created.clientSecret,
        name: created.name,
        description: created.description,
        space_id: created.spaceId,
        created_at: created.createdAt.toISOString(),
        last_updated: created.createdAt.toISOString(),
        ttl: null,
      };
    },
  );
  return router;
}
