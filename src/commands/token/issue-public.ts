import { decideIssuePublicToken } from '../../domain/token/decide.js';
import type { EventMetadata } from '../../domain/events.js';
import {
  InsufficientScopeError,
  InvalidAuthorizationDetailsError,
  InvalidDpopProofError,
  InvalidTokenError,
} from '../../errors/errors.js';
import { scopeWords } from '#verifier/scope.js';
import { tokenRevoked } from '../../domain/policy.js';
import type { PrivateTokenClaims } from '../../crypto/access-tokens.js';
import type { CommandContext } from '../context.js';
import type { DpopProof } from '../../crypto/dpop.js';
import { issuanceNow, refusalError } from './issuance.js';
import { mayActClaim, type AuthorizationDetails } from '#verifier/actor-claim.js';
import { recordIssuedToken, type IssuedToken } from './record-issued.js';
import { credentialsBehind } from './standing.js';
import { isMetadataClientId } from '../../domain/metadata-client/decide.js';
import { decidedInSpan, hashedId } from '../../observability/tracing.js';

/** Each refusal's own error; the private token, not the grant, is at fault. */
const PUBLIC_REFUSED = {
  token_revoked: () => new InvalidTokenError('the private token has been revoked'),
  details_undelegated: () =>
    new InvalidAuthorizationDetailsError(
      'authorization_details is carried only to an agent: name it in may_act',
    ),
  scope_withdrawn: () =>
    new InvalidTokenError(
      'the private token carries a scope withdrawn since, by its credential or the scope catalog: get a new one',
    ),
  dpop_required: () =>
    new InvalidDpopProofError(
      'this client issues only DPoP-bound public tokens: send a DPoP proof or dpop_jkt',
    ),
  space_mismatch: () =>
    new InsufficientScopeError(
      'the private token belongs to another space than X-Service-Space-ID',
    ),
  credential_inactive: () =>
    new InvalidTokenError('the credential of this private token is no longer active'),
  metadata_client: () =>
    new InsufficientScopeError(
      "a client ID metadata document's client buys no public token: only a credential registered in this space does",
    ),
};

/** Issues a public token for a customer and segment, bought with a verified private token. */
export async function issuePublicToken(
  ctx: CommandContext,
  command: {
    readonly spaceId: string;
    readonly customerId: string;
    readonly segmentId: string;
    readonly privateToken: PrivateTokenClaims;
    readonly metadata: EventMetadata;
    readonly dpop?: DpopProof;
    /** `dpop_jkt`: a browser's key, its proof made there; else the proof's key; else bearer. */
    readonly bindTo?: string;
    readonly scopes?: readonly string[];
    /** The agent the customer allows to exchange it (RFC 8693 §4.4). */
    readonly mayAct?: string;
    /** RFC 9396: what the customer allows that agent. */
    readonly authorizationDetails?: AuthorizationDetails | undefined;
  },
): Promise<IssuedToken> {
  const { privateToken, mayAct } = command;
  const jkt = command.bindTo ?? command.dpop?.jkt;
  const revoked = await tokenRevoked(privateToken, (jti) => ctx.revocations.isRevoked(jti));
  // A revoked token, or a metadata document client's, is refused by the decider whatever its
  // credential: no need to look it up.
  const refused = revoked || isMetadataClientId(privateToken.client_id);
  const [credential] = refused ? [] : await credentialsBehind(ctx, privateToken);
  const agent = mayAct === undefined ? undefined : await ctx.credentials.find(mayAct);
  const decided = () => ({
    'oauth.client_id': privateToken.client_id,
    'tenant.space_id': command.spaceId,
    'oauth.customer_id': hashedId(command.customerId),
  });
  const decision = decidedInSpan(decided, () =>
    decideIssuePublicToken(
      {
        spaceId: command.spaceId,
        customerId: command.customerId,
        segmentId: command.segmentId,
        scopes: command.scopes,
        ...issuanceNow(ctx, command.metadata, jkt),
        ...(mayAct === undefined ? {} : { mayAct: { clientId: mayAct, agent } }),
        authorizationDetails: command.authorizationDetails,
        privateToken: {
          clientId: privateToken.client_id,
          spaceId: privateToken.space_id,
          audience: privateToken.aud,
          jti: privateToken.jti,
          expiresAt: privateToken.exp,
          scopes: scopeWords(privateToken.scope),
          revoked,
        },
      },
      credential,
      { ttlSeconds: ctx.publicTokenTtlSeconds, catalog: ctx.scopeCatalog },
    ),
  );
  if (!decision.ok) throw refusalError(decision, PUBLIC_REFUSED);
  return recordIssuedToken(
    ctx,
    {
      iss: ctx.issuer,
      sub: command.customerId,
      aud: privateToken.aud,
      exp: decision.facts.expiresAt,
      iat: decision.facts.issuedAt,
      jti: decision.facts.jti,
      client_id: privateToken.client_id,
      space_id: privateToken.space_id,
      token_kind: 'public',
      customer_id: command.customerId,
      segment_id: command.segmentId,
      parent_jti: privateToken.jti,
      act: { sub: privateToken.client_id },
      ...(mayAct === undefined ? {} : { may_act: mayActClaim(mayAct, decision.facts.mayActScope) }),
      ...(command.authorizationDetails
        ? { authorization_details: command.authorizationDetails }
        : {}),
      ...(decision.facts.scope ? { scope: decision.facts.scope } : {}),
      ...(jkt ? { cnf: { jkt } } : {}),
    },
    decision.events[0]!,
    ctx.limits.clientRequest(decision.facts.credential),
    command.dpop,
  );
}
