import { z } from 'zod';
import { clientActor } from '../../../domain/actors.js';
import { allowedScopes, issuedTo, ruleCredential, ruleScopes } from '../../../domain/policy.js';
import { InvalidGrantError } from '../../../errors/errors.js';
import type { CommandContext } from '../../context.js';
import {
  AssertionRefused,
  checkAssertion,
  spentUntil,
  type AcceptedAssertion,
} from '../../trusted-issuer/assertion-check.js';
import { issuePrivateTokenTo } from '../issue-private.js';
import { authenticateClient } from '../../client-authentication/authenticate.js';
import { defineGrant } from './grant.js';
import { privateTokenResponse } from './private-token-response.js';
import { requestedScopes, scopeParameter } from './scope-parameter.js';

const field = z.string().min(1, 'must not be empty').max(512);

/** RFC 7523 §2.1's grant_type. */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * The credential the matched rule acts as, its scopes narrowed to the rule's, and the jti spent:
 * an assertion is good for one token, across every API process.
 */
async function actingCredential(
  ctx: CommandContext,
  spaceId: string,
  accepted: AcceptedAssertion,
  skewSeconds: number,
) {
  const { rule, issuer, claims } = accepted;
  const credential =
    ruleCredential(await ctx.credentials.find(rule.client_id), issuer.spaceId) ??
    new AssertionRefused('sub', `rule ${rule.id}'s credential is not active in this space`);
  if (credential instanceof AssertionRefused) throw credential;
  const fresh = await ctx.usedOnce.remember({
    spaceId,
    holder: `issuer:${issuer.issuerId}`,
    id: claims.jti,
    expiresAt: spentUntil(accepted, skewSeconds),
  });
  if (!fresh) throw new AssertionRefused('jti', 'already used: an assertion buys one token');
  return {
    ...credential,
    scopes: ruleScopes(allowedScopes(ctx.scopeCatalog, credential), rule),
  };
}

/**
 * RFC 7523 §2.1: a workload presents the token its platform gave it (a Kubernetes service
 * account's, a SPIFFE JWT-SVID, a CI job's OIDC token), signed by an issuer its space trusts,
 * and gets a private token for the credential the matching rule names: no secret of ours. A
 * refusal is invalid_grant naming the claim at fault, counted by the failed-authentication limits
 * as a wrong secret is.
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
    client_id: field.optional(),
    assertion: z.string().min(1).max(16_384),
    audience: field,
    resource: field.optional(),
    scope: scopeParameter,
  }),
  normalize: (body) => ({ ...body, audience: body.audience ?? body.resource }),
  issues: 'private-token-issued',
  async handle(ctx, { fields, client, dpop, spaceId, origin }) {
    const ports = ctx.trustedIssuers;
    if (spaceId === undefined) throw new Error('the route requires the space first');
    if (!ports) throw new InvalidGrantError('iss: this process trusts no issuers');
    const limitKey = `jwt-bearer:${spaceId}`;
    // Client authentication sent beside the assertion is checked, and must be the rule's client.
    const authenticated = client
      ? await authenticateClient(ctx, {
          proof: client,
          metadata: { actor: clientActor(client.clientId), ...origin },
        })
      : undefined;
    let accepted: AcceptedAssertion;
    let credential: Awaited<ReturnType<typeof actingCredential>>;
    try {
      accepted = await checkAssertion(ports, spaceId, fields.assertion, ctx.clock.now());
      const named = authenticated?.clientId ?? fields.client_id;
      if (named !== undefined && !issuedTo({ clientId: accepted.rule.client_id }, named)) {
        throw new AssertionRefused(
          'client_id',
          `the matched rule ${accepted.rule.id} names another client`,
        );
      }
      credential = await actingCredential(ctx, spaceId, accepted, ports.clockSkewSeconds);
    } catch (error) {
      if (!(error instanceof AssertionRefused)) throw error;
      // A bad assertion is a failed authentication: the same budget a wrong secret spends.
      ctx.limits.assertClientNotLockedOut(limitKey, origin.client_ip);
      ctx.limits.failedClientAuthentication(limitKey, origin.client_ip);
      throw new InvalidGrantError(error.message);
    }
    const issued = await issuePrivateTokenTo(ctx, credential, {
      audience: fields.audience,
      scopes: requestedScopes(fields.scope),
      dpop: await dpop(),
      metadata: { actor: clientActor(credential.clientId), ...origin },
      grantType: JWT_BEARER,
      assertion: {
        issuer_id: accepted.issuer.issuerId,
        iss: accepted.issuer.definition.iss,
        sub: accepted.claims.sub,
        jti: accepted.claims.jti,
        rule: accepted.rule.id,
      },
    });
    return privateTokenResponse(issued);
  },
});
