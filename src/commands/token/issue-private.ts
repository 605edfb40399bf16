import { decideIssuePrivateToken } from '../../domain/token/decide.js';
import type { EventMetadata } from '../../domain/events.js';
import type { Credential } from '../../domain/credential/state.js';
import type { AssertionEvidence } from '../../domain/event-data/token.js';
import { authenticateClient, type ClientProof } from '../client-authentication/authenticate.js';
import { InvalidTargetError } from '../../errors/errors.js';
import type { CommandContext } from '../context.js';
import type { DpopProof } from '../../crypto/dpop.js';
import { issuanceNow, refusalError } from './issuance.js';
import { recordIssuedToken, type IssuedToken } from './record-issued.js';
import { issuerRuleClaim } from './standing.js';
import { decidedInSpan } from '../../observability/tracing.js';

/** The client_credentials grant: authenticate the client, then issue. */
export async function issuePrivateToken(
  ctx: CommandContext,
  command: {
    readonly proof: ClientProof;
    readonly audience: string;
    readonly scopes?: readonly string[];
    readonly dpop?: DpopProof;
    readonly metadata: EventMetadata;
  },
): Promise<IssuedToken> {
  // One authentication path for every client-authenticated endpoint: lockout, secret check,
  // bounded failure events. Authenticated, the decision only judges the grant itself.
  const credential = await authenticateClient(ctx, command);
  const { assertion } = credential;
  return issuePrivateTokenTo(ctx, credential, { ...command, ...(assertion ? { assertion } : {}) });
}

/** A private token for a credential already proven (secret, key, or trusted assertion). */
export async function issuePrivateTokenTo(
  ctx: CommandContext,
  credential: Credential,
  command: {
    readonly audience: string;
    readonly scopes?: readonly string[];
    readonly dpop?: DpopProof;
    readonly metadata: EventMetadata;
    readonly grantType?: string;
    readonly assertion?: AssertionEvidence;
    readonly metadataDocument?: string;
  },
): Promise<IssuedToken> {
  const decided = () => ({
    'oauth.grant_type': command.grantType ?? 'client_credentials',
    'oauth.client_id': credential.clientId,
    'tenant.space_id': credential.spaceId,
  });
  const decision = decidedInSpan(decided, () =>
    decideIssuePrivateToken(
      {
        audience: command.audience,
        scopes: command.scopes,
        ...issuanceNow(ctx, command.metadata, command.dpop?.jkt),
        ...(command.assertion ? { assertion: command.assertion } : {}),
        ...(command.metadataDocument ? { metadataDocument: command.metadataDocument } : {}),
      },
      credential,
      {
        audiences: ctx.audiences,
        ttlSeconds: ctx.privateTokenTtlSeconds,
        catalog: ctx.scopeCatalog,
      },
    ),
  );
  if (!decision.ok) {
    throw refusalError(decision, {
      invalid_target: () => new InvalidTargetError(command.audience),
    });
  }
  const { clientId, spaceId } = credential;
  const { assertion } = command;
  return recordIssuedToken(
    ctx,
    {
      iss: ctx.issuer,
      sub: clientId,
      aud: command.audience,
      exp: decision.facts.expiresAt,
      iat: decision.facts.issuedAt,
      jti: decision.facts.jti,
      client_id: clientId,
      space_id: spaceId,
      token_kind: 'private',
      // Which rule bought it: narrowing or removing the rule reaches the token (./standing.ts).
      ...(assertion && { issuer_rule: issuerRuleClaim(assertion) }),
      ...(decision.facts.scope ? { scope: decision.facts.scope } : {}),
      ...(command.dpop ? { cnf: { jkt: command.dpop.jkt } } : {}),
    },
    decision.events[0]!,
    ctx.limits.clientRequest(credential),
    command.dpop,
  );
}
