import { clientActor } from '../actors.js';
import { isoOfSeconds, msOf, secondsOf } from '../times.js';
import { commandEvent, type DomainEvent, type EventData, type Asked } from '../events.js';
import type { AssertionEvidence } from '../event-data/token.js';
import type { Credential } from '../credential/state.js';
import type { Token } from './state.js';
import type { IssuanceEvent } from './issuances.js';
import { accept, refuse, type Decision } from '../decision.js';
import { isMetadataClientId } from '../metadata-client/decide.js';
import {
  allowedScopes,
  credentialActive,
  DELEGABLE_TOKEN_TTL_SECONDS,
  describeScopeRefusal,
  dpopRequired,
  mayBeNamedActor,
  issuedTo,
  privateTokenScopes,
  publicTokenScopes,
  reserveDelegatedScopes,
  tokenInSpace,
  tokenScopesStillAllowed,
  type ScopeGrant,
} from '../policy.js';
import { scopeText } from '#verifier/scope.js';
import type { ScopeCatalog } from '../scope-catalog.js';
import type { AuthorizationDetails } from '#verifier/actor-claim.js';

/** When and under which ids a token is issued: chosen by the handler, so decisions stay pure. */
export interface Issuance extends Asked {
  readonly now: number;
  readonly jti: string;
  /** The DPoP key the token is bound to (its thumbprint); none for a bearer token. */
  readonly jkt?: string | undefined;
  /** Its entry in the space's status list, taken by the handler; none: the token names none. */
  readonly status?: { readonly list: string; readonly idx: number } | undefined;
}

/** A public token's issuance, bought or delegated. */
export interface PublicIssuance extends Issuance {
  readonly spaceId: string;
  /** The `scope` asked for, as words; undefined: the defaults. */
  readonly scopes?: readonly string[];
  /** The agent allowed to act next (`may_act`), and its credential. */
  readonly mayAct?: { readonly clientId: string; readonly agent: Credential | undefined };
  /** RFC 9396 authorization_details asked for. */
  readonly authorizationDetails?: AuthorizationDetails | undefined;
}

/** What every issuance event says alike: filled in by {@link issued}. */
type Common = 'jti' | 'issued_at' | 'expires_at' | 'cnf_jkt' | 'scope' | 'status';

/** The issuance event, the token's claims (`tokenClaims`); no `cnf_jkt` or `scope` when none. */
export function issued<Type extends IssuanceEvent>(
  command: Issuance,
  type: Type,
  data: Omit<EventData<Type>, Common>,
  scopes: readonly string[],
  ttlSeconds: number,
  notAfter = Number.POSITIVE_INFINITY,
): DomainEvent<Type> {
  const issuedAt = secondsOf(command.now);
  const scope = scopes.length > 0 ? scopeText(scopes) : undefined;
  return commandEvent(command, type, {
    ...data,
    jti: command.jti,
    issued_at: isoOfSeconds(issuedAt),
    expires_at: isoOfSeconds(Math.min(issuedAt + ttlSeconds, notAfter)),
    ...(command.jkt ? { cnf_jkt: command.jkt } : {}),
    ...(scope ? { scope } : {}),
    ...(command.status ? { status: command.status } : {}),
  } as EventData<Type>);
}

/** The refusal of a scope grant, its description as the decision's detail. */
export const scopeRefused = (grant: ScopeGrant & { ok: false }, audience: string) =>
  refuse('invalid_scope', [], describeScopeRefusal(grant, audience));

/** Decide a client_credentials grant for an authenticated client: only the audience may refuse. */
export function decideIssuePrivateToken(
  command: Issuance & {
    readonly audience: string;
    readonly scopes?: readonly string[];
    /** What a jwt-bearer grant presented instead of a secret. */
    readonly assertion?: AssertionEvidence;
    /** A client ID metadata document's client: its URL, recorded as the evidence it is. */
    readonly metadataDocument?: string;
  },
  credential: Credential,
  policy: {
    readonly audiences: readonly string[];
    readonly ttlSeconds: number;
    readonly catalog: ScopeCatalog;
  },
): Decision<DomainEvent<'private-token-issued'>, 'invalid_target' | 'invalid_scope'> {
  if (!policy.audiences.includes(command.audience)) return refuse('invalid_target');
  const { catalog } = policy;
  const allowed = allowedScopes(catalog, credential);
  const scopes = privateTokenScopes(catalog, command.audience, allowed, command.scopes);
  if (!scopes.ok) return scopeRefused(scopes, command.audience);
  const event = issued(
    command,
    'private-token-issued',
    {
      client_id: credential.clientId,
      audience: command.audience,
      ...(command.assertion ? { assertion: command.assertion } : {}),
      ...(command.metadataDocument ? { metadata_document: command.metadataDocument } : {}),
    },
    scopes.scopes,
    policy.ttlSeconds,
  );
  return accept([event]);
}

/** The verified private token that pays for a public one. */
export interface PrivateTokenGrant {
  readonly clientId: string;
  readonly spaceId: string;
  readonly audience: string;
  readonly jti: string;
  /** Seconds since the epoch. */
  readonly expiresAt: number;
  readonly scopes: readonly string[];
  /** Revoked (policy.tokenRevoked): it buys nothing. */
  readonly revoked: boolean;
}

/** Decide a public token bought with a verified private token, never outliving it. */
export function decideIssuePublicToken(
  command: PublicIssuance & {
    readonly customerId: string;
    readonly segmentId: string;
    readonly privateToken: PrivateTokenGrant;
  },
  credential: Credential | undefined,
  policy: { readonly ttlSeconds: number; readonly catalog: ScopeCatalog },
): Decision<
  DomainEvent<'public-token-issued'>,
  | 'token_revoked'
  | 'space_mismatch'
  | 'credential_inactive'
  | 'metadata_client'
  | 'scope_withdrawn'
  | 'dpop_required'
  | 'invalid_scope'
  | 'may_act_unknown'
  | 'details_undelegated',
  /** The active credential behind the private token: its budget pays. */
  { readonly credential: Credential }
> {
  const { privateToken, mayAct } = command;
  const { catalog } = policy;
  const { audience } = privateToken;
  if (privateToken.revoked) return refuse('token_revoked');
  if (!tokenInSpace(privateToken, command.spaceId)) return refuse('space_mismatch');
  if (isMetadataClientId(privateToken.clientId)) return refuse('metadata_client');
  if (!credentialActive(credential) || !tokenInSpace(privateToken, credential.spaceId)) {
    return refuse('credential_inactive');
  }
  // Narrowing a credential, or the catalog, reaches its live tokens, as at introspection.
  const allowed = allowedScopes(catalog, credential);
  if (!tokenScopesStillAllowed(privateToken, allowed, catalog)) return refuse('scope_withdrawn');
  if (dpopRequired([credential]) && !command.jkt) return refuse('dpop_required');
  const held = { scopes: privateToken.scopes, allowed };
  const scopes = publicTokenScopes(catalog, audience, held, command.scopes);
  if (!scopes.ok) return scopeRefused(scopes, audience);
  const kept = reserveDelegatedScopes(catalog, audience, {
    scopes: scopes.scopes,
    asked: command.scopes !== undefined,
    mayAct: mayAct !== undefined,
  });
  if (!kept.ok) return scopeRefused(kept, audience);
  const mayActScope = kept.reserved?.length ? scopeText(kept.reserved) : undefined;
  if (mayAct && !mayBeNamedActor(mayAct.agent, command.spaceId)) return refuse('may_act_unknown');
  const details = command.authorizationDetails;
  if (details && !mayAct) return refuse('details_undelegated');
  const event = issued(
    command,
    'public-token-issued',
    {
      client_id: privateToken.clientId,
      audience,
      parent_jti: privateToken.jti,
      customer_id: command.customerId,
      segment_id: command.segmentId,
      ...(mayAct ? { may_act: mayAct.clientId } : {}),
      ...(mayAct && mayActScope ? { may_act_scope: mayActScope } : {}),
      ...(details ? { authorization_details: details } : {}),
    },
    kept.scopes,
    mayAct ? Math.min(policy.ttlSeconds, DELEGABLE_TOKEN_TTL_SECONDS) : policy.ttlSeconds,
    privateToken.expiresAt,
  );
  return accept([event], { credential });
}

/** Revoke an access token (RFC 7009) for its own client; anything else is no event. */
export function decideRevokeToken(
  command: Asked & { readonly clientId: string; readonly now: number },
  state: Token,
): Decision<DomainEvent<'token-revoked'>> {
  if (!issuedTo(state, command.clientId) || state.revokedAt !== null) return accept([]);
  if (msOf(state.expiresAt) <= command.now) return accept([]);
  return accept([
    commandEvent(command, 'token-revoked', {
      client_id: state.clientId,
      jti: state.jti,
      token_kind: state.kind,
      expires_at: isoOfSeconds(state.expiresAt),
      revoked_by: clientActor(command.clientId),
    }),
  ]);
}
