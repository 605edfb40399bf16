import { decideIssuePublicToken } from '../../../domain/token/decide.js';
import {
  InsufficientScopeError,
  InvalidAuthorizationDetailsError,
  InvalidDpopProofError,
  InvalidTokenError,
} from '../../../errors/errors.js';
import { scopeWords } from '#verifier/scope.js';
import { tokenRevoked } from '../../../domain/policy.js';
import type { PrivateTokenClaims } from '../../../crypto/access-tokens.js';
import type { CommandContext } from '../../context.js';
import { issuanceRefusals, issue, type IssuanceFlow, type IssueRequest } from '../issuance.js';
import type { AuthorizationDetails } from '#verifier/actor-claim.js';
import type { Credential } from '../../../domain/credential/state.js';
import { clientStanding, credentialsBehind, type StandingPorts } from '../standing.js';
import { isMetadataClientId } from '../../../domain/metadata-client/decide.js';
import { hashedId } from '../../../observability/tracing.js';

type PublicRefusal = Extract<ReturnType<typeof decideIssuePublicToken>, { ok: false }>['refusal'];

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

/** A public token's issuance for a customer and segment, bought with a verified private token. */
interface PublicRequest extends IssueRequest {
  readonly customerId: string;
  readonly segmentId: string;
  readonly privateToken: PrivateTokenClaims;
  /** `dpop_jkt`: a browser's key, its proof made there; else the proof's key; else bearer. */
  readonly bindTo?: string;
  readonly scopes?: readonly string[] | undefined;
  /** The agent the customer allows to exchange it (RFC 8693 §4.4). */
  readonly mayAct?: string | undefined;
  /** RFC 9396: what the customer allows that agent. */
  readonly authorizationDetails?: AuthorizationDetails | undefined;
}

/** What the rules read: whether the private token is revoked, its credential, the agent named. */
interface Standing {
  readonly revoked: boolean;
  readonly credential: Credential | undefined;
  readonly agent: Credential | undefined;
}

type PublicPorts = StandingPorts & Pick<CommandContext, 'revocations' | 'publicTokenTtlSeconds'>;

const PUBLIC: IssuanceFlow<
  PublicRequest,
  Standing,
  PublicRefusal,
  { credential: Credential },
  PublicPorts
> = {
  load: async (ctx, { privateToken, mayAct, spaceId }) => {
    const revoked = await tokenRevoked(privateToken, (jti) => ctx.revocations.isRevoked(jti));
    // A revoked token, or a metadata document client's, is refused by the decider whatever its
    // credential: no need to look it up.
    const refused = revoked || isMetadataClientId(privateToken.client_id);
    const [credential] = refused ? [] : await credentialsBehind(ctx, privateToken);
    const agent = mayAct === undefined ? undefined : await clientStanding(ctx, spaceId, mayAct);
    return { state: { revoked, credential, agent } };
  },
  decide: (ctx, command, { revoked, credential, agent }) => {
    const { privateToken, mayAct } = command;
    return decideIssuePublicToken(
      {
        ...command,
        mayAct: mayAct === undefined ? undefined : { clientId: mayAct, agent },
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
    );
  },
  refusals: issuanceRefusals(PUBLIC_REFUSED),
  traced: (command) => ({
    'oauth.client_id': command.privateToken.client_id,
    'tenant.space_id': command.spaceId,
    'oauth.customer_id': hashedId(command.customerId),
  }),
  payer: (_command, facts) => facts.credential,
};

/** Issues a public token for a customer and segment, bought with a verified private token. */
export function issuePublicToken(ctx: CommandContext, command: PublicRequest) {
  return issue(ctx, PUBLIC, command, command.bindTo ?? command.dpop?.jkt);
}
