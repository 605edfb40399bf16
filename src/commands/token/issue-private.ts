import { decideIssuePrivateToken } from '../../domain/token/decide.js';
import type { EventMetadata } from '../../domain/events.js';
import { authenticateClient, type ClientProof } from '../client-authentication/authenticate.js';
import { InvalidTargetError } from '../../errors/errors.js';
import type { CommandContext } from '../context.js';
import { recordIssuedToken, type IssuedToken } from './record-issued.js';

/**
 * The client_credentials grant: authenticate the client against the read model, decide, sign,
 * append private-token-issued. The token is returned only after its event committed.
 */
export async function issuePrivateToken(
  ctx: CommandContext,
  command: {
    readonly proof: ClientProof;
    readonly audience: string;
    readonly metadata: EventMetadata;
  },
): Promise<IssuedToken> {
  // One authentication path for every client-authenticated endpoint: lockout, secret check,
  // bounded failure events. Authenticated, the decision only judges the grant itself.
  const credential = await authenticateClient(ctx, command);
  const decision = decideIssuePrivateToken(
    {
      audience: command.audience,
      metadata: command.metadata,
      now: ctx.clock.now(),
      eventId: ctx.ids.eventId(),
      jti: ctx.ids.tokenId(),
    },
    credential,
    { audiences: ctx.audiences, ttlSeconds: ctx.privateTokenTtlSeconds },
  );
  if (!decision.ok) throw new InvalidTargetError(command.audience);
  const { clientId, spaceId } = credential;
  const rateLimit = ctx.limits.clientRequest(credential);
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
