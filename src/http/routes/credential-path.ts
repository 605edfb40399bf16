import type { Middleware } from 'koa';
import { z } from 'zod';
import { MethodNotAllowedError } from '../../errors/errors.js';
import type { RequestContext, RequestState } from '../state.js';
import { validate } from '../validate.js';

/** The credential named in a path (`/v1/credential/:client_id`). */
export const clientPath = z.object({ client_id: z.string().min(1).max(200) });

// /v1/credential/token is the token endpoint (POST only), never a credential: client ids all
// start with "ci_". Other methods there get the token endpoint's 405, not a login challenge.
const notTheTokenEndpoint: Middleware<RequestState> = async (ctx, next) => {
  if ((ctx as RequestContext).params.client_id === 'token')
    throw new MethodNotAllowedError(['POST']);
  await next();
};

/** What every credential route shares: login token, space header, problem+json errors. */
export const common = { tag: 'Credentials', guard: notTheTokenEndpoint } as const;

/** The credential named in the path, taken down in the request's log line. */
export function namedCredential(ctx: RequestContext): string {
  const { client_id: clientId } = validate(clientPath, ctx.params, 'path');
  ctx.state.clientId = clientId;
  return clientId;
}
