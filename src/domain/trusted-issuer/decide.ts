import { accept, refuse, type Decision } from '../decision.js';
import {
  ownedBySpace,
  roomForOne,
  ruleCredential,
  ruleScopesBeyond,
  type SpaceCount,
} from '../policy.js';
import { domainEvent, streams, type Asked, type DomainEvent, type Placed } from '../events.js';
import type { TrustedIssuerDefinition } from '../event-data/trusted-issuer.js';

/** A trusted issuer as its row holds it: what the deciders below judge. */
export interface TrustedIssuerState {
  readonly issuerId: string;
  readonly spaceId: string;
  readonly definition: TrustedIssuerDefinition;
  readonly removed: boolean;
}

/** A rule's credential as the command layer read it: its space, status and allowed scopes. */
export interface RuleCredential {
  readonly spaceId: string;
  readonly status: string;
  readonly allows: readonly string[];
}

/** What an add or a change is judged with besides the definition. */
export interface IssuerCommand extends Asked {
  readonly spaceId: string;
  readonly issuerId: string;
  readonly sameIss?: string;
  /** The audiences that name this service (its issuer identifier, its token endpoint). */
  readonly ours: readonly string[];
  /** JWT_BEARER_MAX_LIFETIME_CEILING_SECONDS: the most an issuer's own lifetime may say. */
  readonly lifetimeCeiling: number;
  /** The credentials the rules name, by client id (absent: none such). */
  readonly credentials: ReadonlyMap<string, RuleCredential>;
}

/** Why an issuer's change is refused; the detail names the field at fault. */
export type IssuerRefusal = 'not_found' | 'duplicate_iss' | 'invalid_definition' | 'issuer_limit';

const placed = (spaceId: string, issuerId: string, eventId: string): Placed => ({
  spaceId,
  stream: streams.trustedIssuerChange(issuerId, eventId),
});

/** Why a definition may not be trusted in this space (its audience, its rules), or undefined. */
function definitionRefusal(
  definition: TrustedIssuerDefinition,
  command: IssuerCommand,
): string | undefined {
  if (!command.ours.includes(definition.audience)) {
    return `audience: must name this service, one of ${command.ours.join(', ')}`;
  }
  if ((definition.max_lifetime_seconds ?? 0) > command.lifetimeCeiling) {
    return `max_lifetime_seconds: at most ${command.lifetimeCeiling} (JWT_BEARER_MAX_LIFETIME_CEILING_SECONDS)`;
  }
  for (const rule of definition.rules) {
    const credential = command.credentials.get(rule.client_id);
    if (!ruleCredential(credential, command.spaceId)) {
      return `rules.${rule.id}.client_id: no active credential ${rule.client_id} in this space`;
    }
    const beyond = ruleScopesBeyond(credential!.allows, rule);
    if (beyond.length > 0) {
      return `rules.${rule.id}.scopes: the credential does not allow ${beyond.join(' ')}`;
    }
  }
  return undefined;
}

/** A space's admin trusts an issuer: refused for another live one of the same `iss`. */
export function decideAddIssuer(
  command: IssuerCommand & { readonly definition: TrustedIssuerDefinition; issuers?: SpaceCount },
): Decision<DomainEvent<'trusted-issuer-added'>, IssuerRefusal, Placed> {
  if (command.sameIss !== undefined) return refuse('duplicate_iss');
  if (!roomForOne(command.issuers)) return refuse('issuer_limit');
  const why = definitionRefusal(command.definition, command);
  if (why) return refuse('invalid_definition', [], why);
  const event = domainEvent(
    command.eventId,
    'trusted-issuer-added',
    { issuer_id: command.issuerId, issuer: command.definition },
    command.metadata,
  );
  return accept([event], placed(command.spaceId, command.issuerId, command.eventId));
}

const live = (state: TrustedIssuerState | undefined, spaceId: string) =>
  state && !state.removed && ownedBySpace(state, spaceId) ? state : undefined;

/** A space's admin changes an issuer (keys, audience, rules, even its `iss`); nothing when the same. */
export function decideChangeIssuer(
  command: IssuerCommand & { readonly definition: TrustedIssuerDefinition },
  state: TrustedIssuerState | undefined,
): Decision<DomainEvent<'trusted-issuer-changed'>, IssuerRefusal, Placed> {
  const current = live(state, command.spaceId);
  if (!current) return refuse('not_found');
  if (command.sameIss !== undefined && command.sameIss !== current.issuerId) {
    return refuse('duplicate_iss');
  }
  const why = definitionRefusal(command.definition, command);
  if (why) return refuse('invalid_definition', [], why);
  const where = placed(current.spaceId, current.issuerId, command.eventId);
  if (JSON.stringify(current.definition) === JSON.stringify(command.definition)) {
    return accept([], where);
  }
  const event = domainEvent(
    command.eventId,
    'trusted-issuer-changed',
    { issuer_id: current.issuerId, issuer: command.definition },
    command.metadata,
  );
  return accept([event], where);
}

/** A space's admin stops trusting an issuer; removing a removed one records nothing. */
export function decideRemoveIssuer(
  command: Pick<IssuerCommand, 'eventId' | 'metadata' | 'spaceId'>,
  state: TrustedIssuerState | undefined,
): Decision<DomainEvent<'trusted-issuer-removed'>, IssuerRefusal, Placed> {
  if (!state || !ownedBySpace(state, command.spaceId)) return refuse('not_found');
  const where = placed(state.spaceId, state.issuerId, command.eventId);
  if (state.removed) return accept([], where);
  const event = domainEvent(
    command.eventId,
    'trusted-issuer-removed',
    { issuer_id: state.issuerId, iss: state.definition.iss },
    command.metadata,
  );
  return accept([event], where);
}
