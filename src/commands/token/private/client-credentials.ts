import { z } from 'zod';
import { clientActor } from '../../../domain/actors.js';
import { issuePrivateTokenTo } from './issue.js';
import { atEndpoint, identifyClient } from '../../client-authentication/identify.js';
import { defineGrant } from '../grants/grant.js';
import { tokenResponse } from '../grants/answer.js';
import {
  audienceOfResource,
  privateTokenTarget,
  requestedScopes,
} from '../grants/scope-parameter.js';

/**
 * RFC 6749 §4.4: an authenticated client gets a private token for an audience. A client ID
 * metadata document's client names the space (the route passes it only for such an id).
 */
export const clientCredentialsGrant = defineGrant({
  grantType: 'client_credentials',
  summary: 'RFC 6749 §4.4: a private access token for a server, the client authenticated',
  clientAuthentication: 'required',
  space: 'none',
  schema: z.object(privateTokenTarget),
  normalize: audienceOfResource,
  issues: 'private-token-issued',
  async handle(ctx, { fields, client, dpop, origin, spaceId }) {
    if (!client) throw new Error('the route authenticates the client first');
    const asked = {
      dpop: await dpop(),
      audience: fields.audience,
      scopes: requestedScopes(fields.scope),
      metadata: { actor: clientActor(client.clientId), ...origin },
    };
    // A private_key_jwt in a space: a client ID metadata document's URL, no credential of ours.
    const document = client.method === 'assertion' && spaceId !== undefined;
    const credential = await identifyClient(
      ctx,
      document
        ? { as: 'document', clientId: client.clientId, assertion: client.assertion, spaceId }
        : { as: 'client', proof: client },
      atEndpoint(origin),
    );
    const { assertion } = credential;
    const proven = document ? { metadataDocument: client.clientId } : assertion && { assertion };
    return tokenResponse(await issuePrivateTokenTo(ctx, credential, { ...asked, ...proven }));
  },
});
