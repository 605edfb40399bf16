import { z } from 'zod';
import { clientActor } from '../../../domain/actors.js';
import { InvalidGrantError } from '../../../errors/errors.js';
import { issuePrivateTokenTo } from './issue.js';
import { atEndpoint, identifyClient } from '../../client-authentication/identify.js';
import { defineGrant } from '../grants/grant.js';
import { tokenResponse } from '../grants/answer.js';
import {
  audienceOfResource,
  privateTokenTarget,
  requestedScopes,
  target,
} from '../grants/scope-parameter.js';

/** RFC 7523 §2.1's grant_type. */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * RFC 7523 §2.1: a workload's platform token, signed by an issuer its space trusts, buys a private
 * token for the rule's credential. A refusal is counted and recorded as a wrong secret is.
 */
export const jwtBearerGrant = defineGrant({
  grantType: JWT_BEARER,
  summary:
    "RFC 7523 §2.1: a private access token for a trusted issuer's assertion (a Kubernetes, SPIFFE or CI token), no secret",
  clientAuthentication: 'when-sent',
  publicClients: true,
  space: 'required',
  schema: z.object({
    /** Named without a secret (a public client): must be the client the matched rule names. */
    client_id: target.optional(),
    assertion: z.string().min(1).max(16_384),
    ...privateTokenTarget,
  }),
  normalize: audienceOfResource,
  issues: 'private-token-issued',
  async handle(ctx, { fields, client, dpop, spaceId, origin }) {
    if (spaceId === undefined) throw new Error('the route requires the space first');
    // Client authentication sent beside the assertion is checked, and must be the rule's client.
    const authenticated =
      client && (await identifyClient(ctx, { as: 'client', proof: client }, atEndpoint(origin)));
    const named = authenticated ? authenticated.clientId : fields.client_id;
    const { assertion, ...credential } = await identifyClient(
      ctx,
      { as: 'workload', assertion: fields.assertion, spaceId, named },
      { origin, refused: (reason = 'assertion: refused') => new InvalidGrantError(reason) },
    );
    const issued = await issuePrivateTokenTo(ctx, credential, {
      audience: fields.audience,
      scopes: requestedScopes(fields.scope),
      dpop: await dpop(),
      metadata: { actor: clientActor(credential.clientId), ...origin },
      grantType: JWT_BEARER,
      assertion,
    });
    return tokenResponse(issued);
  },
});
