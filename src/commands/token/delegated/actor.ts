import type { Credential } from '../../../domain/credential/state.js';
import type { ActorToken } from '../../../domain/token/delegate.js';
import { tokenRevoked } from '../../../domain/policy.js';
import { InvalidGrantError } from '../../../errors/errors.js';
import type { PrivateTokenClaims } from '../../../crypto/access-tokens.js';
import type { EventMetadata } from '../../../domain/events.js';
import type { CommandContext } from '../../context.js';
import { identifyClient } from '../../client-authentication/identify.js';
import { ACCESS_TOKEN_TYPE, asGrantError } from '../grants/answer.js';
import { credentialsBehind } from '../standing.js';

/** RFC 8693 §3: an actor_token that is a JWT of the agent's own making, not our access token. */
export const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';

/** The agent as its actor_token proves it; `claims` when that was our private token. */
export type ProvenActor = ActorToken & {
  readonly claims?: PrivateTokenClaims;
  /** Its credential as it stands now; a trusted issuer's rule's narrowed to the rule's scopes. */
  readonly credential: Credential | undefined;
};

/**
 * Who the actor is: its private token, a private_key_jwt assertion of its own credential (RFC 7523
 * §3), or a trusted issuer's assertion. An assertion has no end of its own: the subject token and
 * the TTL bound the delegated token's life. A refused assertion is a failed client authentication
 * of the client it claimed to be: counted and recorded as at the token endpoint.
 */
export async function provenActor(
  ctx: CommandContext,
  token: string,
  type: string,
  spaceId: string,
  origin: Omit<EventMetadata, 'actor'>,
): Promise<ProvenActor> {
  if (type === ACCESS_TOKEN_TYPE) {
    const claims = await asGrantError(() => ctx.verifier.verify(token, 'private'), 'actor_token');
    const revoked = await tokenRevoked(claims, (jti) => ctx.revocations.isRevoked(jti));
    const [credential] = await credentialsBehind(ctx, claims);
    const { client_id: clientId, space_id: owner, exp: expiresAt } = claims;
    return { clientId, spaceId: owner, expiresAt, revoked, claims, credential };
  }
  const credential = await identifyClient(
    ctx,
    { as: 'actor', assertion: token, spaceId },
    {
      origin,
      refused: (reason = OWN_ASSERTION) => new InvalidGrantError(`actor_token: ${reason}`),
    },
  );
  const { clientId, assertion } = credential;
  const ends = { expiresAt: Number.POSITIVE_INFINITY, revoked: false } as const;
  return { ...ends, clientId, spaceId: credential.spaceId, credential, assertion };
}

const OWN_ASSERTION =
  "not a good assertion of an active client's keys (iss = sub = the client id, aud this issuer, exp within 300 s, a jti not used before)";
