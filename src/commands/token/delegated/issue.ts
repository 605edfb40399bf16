import { decideDelegatedToken, type DelegationRefusal } from '../../../domain/token/delegate.js';
import {
  InvalidAuthorizationDetailsError,
  InvalidDpopProofError,
  InvalidGrantError,
  RateLimitedError,
} from '../../../errors/errors.js';
import { scopeWords } from '#verifier/scope.js';
import {
  DEFAULT_DELEGATION_BUDGET,
  DEFAULT_DELEGATION_DEPTH,
  delegationWindow,
  tokenRevoked,
} from '../../../domain/policy.js';
import { secondsOf } from '../../../domain/times.js';
import type { PublicTokenClaims } from '../../../crypto/access-tokens.js';
import type { ProvenActor } from './actor.js';
import { actorChain, type AuthorizationDetails } from '#verifier/actor-claim.js';
import type { Credential } from '../../../domain/credential/state.js';
import type { CommandContext } from '../../context.js';
import { hashedId } from '../../../observability/tracing.js';
import { issuanceRefusals, issue, type IssuanceFlow, type IssueRequest } from '../issuance.js';
import { clientStanding, credentialsBehind, type StandingPorts } from '../standing.js';

/** RFC 8693 §2.2.2: a grant that does not hold is invalid_grant, saying why. */
const grant = (description: string) => () => new InvalidGrantError(description);

/** Each refusal's own error. */
const DELEGATION_REFUSED = {
  subject_space: grant('subject_token belongs to another space than X-Service-Space-ID'),
  subject_inactive: grant(
    "subject_token has been revoked, or its client's credential no longer active or no longer allowing its scopes",
  ),
  actor_space: grant('actor_token belongs to another space than X-Service-Space-ID'),
  actor_inactive: grant(
    "actor_token has been revoked, or its client's credential is no longer active",
  ),
  actor_not_allowed: grant("the subject token's may_act does not name the actor_token's client"),
  chain_too_deep: grant(
    'the actor chain would name more agents than DELEGATION_MAX_DEPTH allows after the storefront',
  ),
  details_widened: () =>
    new InvalidAuthorizationDetailsError(
      "authorization_details may only repeat some of the subject token's objects, unchanged",
    ),
  dpop_required: () =>
    new InvalidDpopProofError(
      'this agent, or the storefront it acts for, uses only DPoP-bound tokens: send a DPoP proof',
    ),
};

/** A delegated token's issuance: the subject token exchanged by the agent it names. */
interface DelegatedRequest extends IssueRequest {
  readonly subject: PublicTokenClaims;
  readonly actor: ProvenActor;
  /** Undefined: the subject token's the agent may carry. */
  readonly scopes?: readonly string[] | undefined;
  /** Re-delegation: the next agent's client id. */
  readonly mayAct?: string | undefined;
  /** Some of the subject token's; undefined: all of them. */
  readonly authorizationDetails?: AuthorizationDetails | undefined;
}

/** The acting agent, whose budget pays. */
type Agent = { readonly agent: Credential };

/** What the rules read: the next agent named, the subject token's standing. */
interface Standing {
  readonly agent: Credential | undefined;
  readonly revoked: boolean;
  readonly credentials: Array<Credential | undefined>;
}

type DelegatedPorts = StandingPorts &
  Pick<CommandContext, 'revocations' | 'publicTokenTtlSeconds' | 'delegation' | 'usedOnce'>;

const DELEGATED: IssuanceFlow<
  DelegatedRequest,
  Standing,
  DelegationRefusal,
  Agent,
  DelegatedPorts
> = {
  load: async (ctx, { subject, mayAct, spaceId }) => {
    const agent = mayAct === undefined ? undefined : await clientStanding(ctx, spaceId, mayAct);
    const revoked = await tokenRevoked(subject, (jti) => ctx.revocations.isRevoked(jti));
    const credentials = await credentialsBehind(ctx, subject);
    return { state: { agent, revoked, credentials } };
  },
  decide: (ctx, command, { agent, revoked, credentials }) => {
    const { subject, actor, mayAct } = command;
    return decideDelegatedToken(
      {
        ...command,
        mayAct: mayAct === undefined ? undefined : { clientId: mayAct, agent },
        subject: {
          spaceId: subject.space_id,
          audience: subject.aud,
          jti: subject.jti,
          parentJti: subject.parent_jti,
          expiresAt: subject.exp,
          // What the storefront kept for the agent in may_act is the agent's to ask for.
          scopes: [...scopeWords(subject.scope), ...scopeWords(subject.may_act?.scope)],
          customerId: subject.customer_id,
          segmentId: subject.segment_id,
          mayAct: subject.may_act?.sub,
          actors: actorChain(subject.act),
          subjects: subject.subject_jtis,
          revoked,
          authorizationDetails: subject.authorization_details,
        },
      },
      { subject: credentials, agent: actor.credential },
      {
        ttlSeconds: ctx.publicTokenTtlSeconds,
        catalog: ctx.scopeCatalog,
        maxDepth: ctx.delegation?.maxDepth ?? DEFAULT_DELEGATION_DEPTH,
      },
    );
  },
  refusals: issuanceRefusals(DELEGATION_REFUSED),
  traced: (command) => ({
    'oauth.client_id': command.actor.clientId,
    'tenant.space_id': command.spaceId,
    'oauth.customer_id': hashedId(command.subject.customer_id),
  }),
  payer: (_command, facts) => facts.agent,
  spend: (ctx, command, { agent }) => spendDelegationBudget(ctx, command, agent.clientId),
};

/**
 * Issues a delegated public token: `sub` the customer, `act` the agent with the chain before it
 * nested; recorded with the subject token's jti and what was narrowed before it is handed out.
 */
export function issueDelegatedToken(ctx: CommandContext, command: DelegatedRequest) {
  return issue(ctx, DELEGATED, command);
}

/**
 * Takes one of the agent's delegated tokens for this customer in the window, or 429 (RFC 6749
 * §5.2 has no code for it). Each token claims a numbered slot as a once-used id, whose primary key
 * lets one insert win across replicas: no process's memory or count read is trusted. A slot
 * taken by an issuance that then failed stays spent, erring on the customer's side.
 */
async function spendDelegationBudget(
  ctx: Pick<CommandContext, 'delegation' | 'clock' | 'usedOnce'>,
  { spaceId, metadata, subject }: Pick<DelegatedRequest, 'spaceId' | 'metadata' | 'subject'>,
  agent: string,
): Promise<void> {
  const customer = subject.customer_id;
  const { count, windowSeconds } = ctx.delegation?.budget ?? DEFAULT_DELEGATION_BUDGET;
  const now = secondsOf(ctx.clock.now());
  const { index, endsAt } = delegationWindow(now, windowSeconds);
  const ids = Array.from({ length: count }, (_, slot) =>
    JSON.stringify([customer, index, slot + 1]),
  );
  const expiresAt = new Date(endsAt * 1000);
  const holder = `delegation:${agent}`;
  const slot = await ctx.usedOnce.rememberFirst(
    { spaceId, holder, ids, expiresAt },
    metadata.request_id,
  );
  if (slot !== undefined) return;
  const retryAfterSeconds = endsAt - now;
  throw new RateLimitedError(
    `this agent has had its ${count} delegated tokens for this customer in ${windowSeconds} seconds; retry in ${retryAfterSeconds} seconds`,
    { policy: 'delegation', quota: count, windowSeconds, retryAfterSeconds },
  );
}
