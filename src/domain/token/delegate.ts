import type { DomainEvent } from '../events.js';
import type { Credential } from '../credential/state.js';
import { accept, refuse, type Decision } from '../decision.js';
import {
  allowedScopes,
  credentialActive,
  dpopRequired,
  DELEGABLE_TOKEN_TTL_SECONDS,
  delegatedDetails,
  delegatedTokenScopes,
  chainTooDeep,
  mayActFor,
  mayBeNamedActor,
  standsOnCredentials,
  tokenInSpace,
} from '../policy.js';
import { scopeText } from '#verifier/scope.js';
import type { ScopeCatalog } from '../scope-catalog.js';
import type { AuthorizationDetails } from '#verifier/actor-claim.js';
import type { AssertionEvidence } from '../event-data/token.js';
import { issued, scopeRefused, type PublicIssuance } from './decide.js';

/** The verified public token a customer's storefront issued naming an agent in `may_act`. */
export interface DelegableToken {
  readonly spaceId: string;
  readonly audience: string;
  readonly jti: string;
  /** The private token that bought it: revoking that one voids the delegated token too. */
  readonly parentJti: string;
  readonly expiresAt: number;
  readonly scopes: readonly string[];
  readonly customerId: string;
  readonly segmentId: string;
  /** RFC 8693 §4.4: the client id the customer allowed; undefined when none was named. */
  readonly mayAct: string | undefined;
  /** Its `act` chain's client ids, the latest actor first. */
  readonly actors: readonly string[];
  /** Delegated itself: its own subjects (`subject_jtis`), whose revocation voids it. */
  readonly subjects?: readonly string[] | undefined;
  /** Revoked itself or through its private token. */
  readonly revoked: boolean;
  /** RFC 9396: what the customer allowed the agents, as the token carries it. */
  readonly authorizationDetails?: AuthorizationDetails | undefined;
}

/** The agent's own verified private token (RFC 8693 `actor_token`). */
export interface ActorToken {
  readonly clientId: string;
  readonly spaceId: string;
  readonly expiresAt: number;
  readonly revoked: boolean;
  /** A trusted issuer's assertion it proved itself by: recorded, and its rule judged on every use. */
  readonly assertion?: AssertionEvidence | undefined;
}

/** What refuses a delegation; each answered invalid_grant or invalid_scope by the handler. */
export type DelegationRefusal =
  | 'subject_space'
  | 'subject_inactive'
  | 'actor_space'
  | 'actor_inactive'
  | 'actor_not_allowed'
  | 'chain_too_deep'
  | 'may_act_unknown'
  | 'details_widened'
  | 'dpop_required'
  | 'invalid_scope';

/**
 * Decide RFC 8693 delegation: the agent the subject token's `may_act` names acts for the customer,
 * within both tokens' scopes and lives; with `mayAct` it delegates again, within `maxDepth`.
 */
export function decideDelegatedToken(
  command: PublicIssuance & { readonly subject: DelegableToken; readonly actor: ActorToken },
  /** `subject`: those the subject token stands on (policy.tokenCredentials), as found now. */
  credentials: { readonly subject: Array<Credential | undefined>; readonly agent?: Credential },
  policy: {
    readonly ttlSeconds: number;
    readonly catalog: ScopeCatalog;
    /** DELEGATION_MAX_DEPTH: the agents a chain may name after the storefront. */
    readonly maxDepth: number;
  },
): Decision<
  DomainEvent<'public-token-issued'>,
  DelegationRefusal,
  /** The acting agent's credential: its budget pays. */
  { readonly agent: Credential }
> {
  const { subject, actor, spaceId, mayAct } = command;
  const { catalog, maxDepth } = policy;
  if (!tokenInSpace(subject, spaceId)) return refuse('subject_space');
  // Every credential it came through (the storefront last) stands, allowing its scopes now.
  if (subject.revoked || !standsOnCredentials(subject, credentials.subject, catalog)) {
    return refuse('subject_inactive');
  }
  if (!tokenInSpace(actor, spaceId)) return refuse('actor_space');
  const agent = credentials.agent;
  if (actor.revoked || !credentialActive(agent) || !tokenInSpace(agent, spaceId)) {
    return refuse('actor_inactive');
  }
  if (!mayActFor(subject.mayAct, agent.clientId)) return refuse('actor_not_allowed');
  if (dpopRequired([agent, ...credentials.subject]) && !command.jkt) return refuse('dpop_required');
  const actors: [string, ...string[]] = [agent.clientId, ...subject.actors];
  if (chainTooDeep(actors, maxDepth)) return refuse('chain_too_deep');
  if (mayAct && !mayBeNamedActor(mayAct.agent, spaceId)) return refuse('may_act_unknown');
  // Refused now rather than at the next agent's exchange: a may_act no exchange could honour.
  if (mayAct && chainTooDeep([mayAct.clientId, ...actors], maxDepth)) {
    return refuse('chain_too_deep');
  }
  const { audience } = subject;
  const agentScopes = allowedScopes(catalog, agent);
  const scopes = delegatedTokenScopes(
    catalog,
    audience,
    subject.scopes,
    agentScopes,
    command.scopes,
  );
  if (!scopes.ok) return scopeRefused(scopes, audience);
  const details = delegatedDetails(subject.authorizationDetails, command.authorizationDetails);
  if (!details.ok) return refuse('details_widened');
  const carried = details.details;
  const narrowed = scopes.narrowed ?? [];
  const event = issued(
    command,
    'public-token-issued',
    {
      client_id: agent.clientId,
      audience,
      parent_jti: subject.parentJti,
      customer_id: subject.customerId,
      segment_id: subject.segmentId,
      subject_jti: subject.jti,
      ...(subject.subjects?.length ? { earlier_subject_jtis: [...subject.subjects] } : {}),
      actors,
      ...(narrowed.length > 0 ? { narrowed: scopeText(narrowed) } : {}),
      ...(mayAct ? { may_act: mayAct.clientId } : {}),
      ...(actor.assertion ? { assertion: actor.assertion } : {}),
      ...(carried ? { authorization_details: carried } : {}),
      ...(details.dropped.length > 0 ? { narrowed_details: details.dropped } : {}),
    },
    scopes.scopes,
    Math.min(policy.ttlSeconds, DELEGABLE_TOKEN_TTL_SECONDS),
    Math.min(subject.expiresAt, actor.expiresAt),
  );
  return accept([event], { agent });
}
