import { z } from 'zod';
import { clientActor } from '../../../domain/actors.js';
import { issuePrivateToken } from '../issue-private.js';
import { defineGrant } from './grant.js';
import { privateTokenResponse } from './private-token-response.js';
import { requestedScopes, scopeParameter } from './scope-parameter.js';

const field = z.string().min(1, 'must not be empty').max(512);

/**
 * RFC 6749 §4.4: a client authenticates (secret or private_key_jwt) and gets a private token for
 * an audience (`resource`, RFC 8707's name, is taken for it too).
 */
export const clientCredentialsGrant = defineGrant({
  grantType: 'client_credentials',
  summary: 'RFC 6749 §4.4: a private access token for a server, the client authenticated',
  clientAuthentication: 'required',
  space: 'none',
  schema: z.object({
    audience: field,
    /** RFC 8707 name for the same thing; accepted so generic OAuth clients work. */
    resource: field.optional(),
    scope: scopeParameter,
  }),
  normalize: (body) => ({ ...body, audience: body.audience ?? body.resource }),
  issues: 'private-token-issued',
  async handle(ctx, { fields, client, dpop, origin }) {
    if (!client) throw new Error('the route authenticates the client first');
    const issued = await issuePrivateToken(ctx, {
      proof: client,
      dpop: await dpop(),
      audience: fields.audience,
      scopes: requestedScopes(fields.scope),
      metadata: { actor: clientActor(client.clientId), ...origin },
    });
    return privateTokenResponse(issued);
  },
});
