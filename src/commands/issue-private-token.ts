import { decideIssuePrivateToken } from '../domain/decisions.js';
import type { EventMetadata } from '../domain/events.js';
import { authenticateClient } from './authenticate-client.js';
import { InvalidClientError, InvalidTargetError } from '../errors/errors.js';
import type { CommandContext } from './context.js';
import { recordIssuedToken, type IssuedToken } from './record-issued-token.js';

/**
 * The client_credentials grant: authenticate the client against the read model, decide, sign,
 * append private-token-issued. The token is returned only after its event committed.
 */
export async function issuePrivateToken(
  ctx: CommandContext,
  command: {
    readonly clientId: string;
    readonly clientSecret: string;
    readonly audience: string;
    readonly metadata: EventMetadata;
  },
): Promise<IssuedToken> {
  // One authentication path for every client-authenticated endpoint: lockout, secret check,
  // bounded failure events. Authenticated, the decision only judges the grant itself.
  const credential = await authenticateClient(ctx, command);
  const decision = decideIssuePrivateToken(
    command,
    credential,
    true,
    { audiences: ctx.audiences, ttlSeconds: ctx.privateTokenTtlSeconds },
    ctx.clock,
    ctx.ids,
  );
  if (!decision.ok) {
    throw decision.error === 'invalid_target'
      ? new InvalidTargetError(command.audience)
      : new InvalidClientError();
  }
  const { clientId, spaceId } = decision.credential;
  const rateLimit = ctx.limits.clientRequest(clientId, decision.credential.rateLimitPerMinute);
  return recordIssuedToken(
    ctx,
    {
      iss: ctx.issuer,
      sub: clientId,
      aud: command.audience,
      exp: decision.expiresAt,
      iat: decision.issuedAt,
      jti: decision.jti,
      client_id: clientId,
      space_id: spaceId,
      token_kind: 'private',
    },
    decision.event,
    rateLimit,
  );
}
