import { clientActor } from '../actors.js';
import { isoOfSeconds, msOf, secondsOf } from '../times.js';
import { commandEvent, type DomainEvent, type EventMetadata } from '../events.js';
import type { AssertionEvidence } from '../event-data/token.js';
import type { Credential } from '../credential/state.js';
import type { Token } from './state.js';
import { accept, refuse, type Decision } from '../decision.js';
import {
  allowedScopes,
  credentialActive,
  DELEGABLE_TOKEN_TTL_SECONDS,
  describeScopeRefusal,
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
export interface Issuance {
  readonly now: number;
  readonly eventId: string;
  readonly jti: string;
  readonly metadata: EventMetadata;
  /** The DPoP key the token is bound to (its thumbprint); none for a bearer token. */
  readonly jkt?: string;
}

/** The event's `cnf_jkt`: the key the token is bound to, absent for a bearer token. */
export const binding = (command: Issuance) => (command.jkt ? { cnf_jkt: command.jkt } : {});
/** The event's `scope`: absent when none was granted, so unscoped events are as before. */
export const granted = (scopes: readonly string[]) =>
  scopes.length > 0 ? { scope: scopeText(scopes) } : {};

/** A token's id, lifetime in seconds since the epoch and granted scopes, as the JWT carries them. */
export interface Lifetime {
  readonly jti: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** The `scope` claim: the granted scopes' text, absent when none were granted. */
  readonly scope?: string;
}

/** The refusal of a scope grant, its description as the decision's detail. */
const scopeRefused = (grant: ScopeGrant & { ok: false }, audience: string) =>
  refuse('invalid_scope', [], describeScopeRefusal(grant, audience));

/** Issue and expiry times (seconds); expiry never past `notAfter`. */
export function lifetime(
  command: Issuance,
  ttlSeconds: number,
  notAfter = Number.POSITIVE_INFINITY,
) {
  const issuedAt = secondsOf(command.now);
  const expiresAt = Math.min(issuedAt + ttlSeconds, notAfter);
  return {
    jti: command.jti,
    issuedAt,
    expiresAt,
    issued_at: isoOfSeconds(issuedAt),
    expires_at: isoOfSeconds(expiresAt),
  };
}

/**
 * Decide a client_credentials grant for a client that has authenticated (see
 * decideClientAuthentication): only the audience can still refuse it.
 */
export function decideIssuePrivateToken(
  command: Issuance & {
    readonly audience: string;
    /** The `scope` asked for, as words; undefined: none asked, the defaults. */
    readonly scopes?: readonly string[];
    /** What a jwt-bearer grant presented instead of a secret, recorded with the issuance. */
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
): Decision<DomainEvent<'private-token-issued'>, 'invalid_target' | 'invalid_scope', Lifetime> {
  if (!policy.audiences.includes(command.audience)) return refuse('invalid_target');
  const scopes = privateTokenScopes(
    policy.catalog,
    command.audience,
    allowedScopes(policy.catalog, credential),
    command.scopes,
  );
  if (!scopes.ok) return scopeRefused(scopes, command.audience);
  const { issued_at, expires_at, ...times } = lifetime(command, policy.ttlSeconds);
  const event = commandEvent(command, 'private-token-issued', {
    client_id: credential.clientId,
    audience: command.audience,
    jti: times.jti,
    issued_at,
    expires_at,
    ...binding(command),
    ...granted(scopes.scopes),
    ...(command.assertion ? { assertion: command.assertion } : {}),
    ...(command.metadataDocument ? { metadata_document: command.metadataDocument } : {}),
  });
  return accept([event], { ...times, ...granted(scopes.scopes) });
}

/** The verified private token that pays for a public one. */
export interface PrivateTokenGrant {
  readonly clientId: string;
  readonly spaceId: string;
  readonly audience: string;
  readonly jti: string;
  /** Seconds since the epoch. */
  readonly expiresAt: number;
  /** The scopes it carries. */
  readonly scopes: readonly string[];
  /** Whether it has been revoked (policy.tokenRevoked): a revoked one buys nothing. */
  readonly revoked: boolean;
}

/**
 * Decide a public token for a customer and segment, on the strength of a verified private token.
 * A public token never outlives the private token that bought it.
 */
export function decideIssuePublicToken(
  command: Issuance & {
    readonly spaceId: string;
    readonly customerId: string;
    readonly segmentId: string;
    readonly privateToken: PrivateTokenGrant;
    /** The `scope` asked for, as words; undefined: none asked, the defaults. */
    readonly scopes?: readonly string[];
    /** The agent the customer allows to act for them (`may_act`), and its credential. */
    readonly mayAct?: { readonly clientId: string; readonly agent: Credential | undefined };
    /** RFC 9396: what the customer allows that agent; only with `mayAct`. */
    readonly authorizationDetails?: AuthorizationDetails | undefined;
  },
  credential: Credential | undefined,
  policy: { readonly ttlSeconds: number; readonly catalog: ScopeCatalog },
): Decision<
  DomainEvent<'public-token-issued'>,
  | 'token_revoked'
  | 'space_mismatch'
  | 'credential_inactive'
  | 'scope_withdrawn'
  | 'dpop_required'
  | 'invalid_scope'
  | 'may_act_unknown'
  | 'details_undelegated',
  /** With the active credential behind the private token, and the scopes kept for the agent. */
  Lifetime & { readonly credential: Credential; readonly mayActScope?: string }
> {
  const { privateToken } = command;
  if (privateToken.revoked) return refuse('token_revoked');
  if (!tokenInSpace(privateToken, command.spaceId)) return refuse('space_mismatch');
  if (!credentialActive(credential) || !tokenInSpace(privateToken, credential.spaceId)) {
    return refuse('credential_inactive');
  }
  // Narrowing a credential, or the catalog, reaches its live tokens, here as at introspection: a
  // private token carrying a scope taken away since buys nothing (issue 51, items 9 and 12).
  const allowed = allowedScopes(policy.catalog, credential);
  if (!tokenScopesStillAllowed(privateToken, allowed, policy.catalog)) {
    return refuse('scope_withdrawn');
  }
  if (credential.requireDpop && !command.jkt) return refuse('dpop_required');
  const scopes = publicTokenScopes(
    policy.catalog,
    privateToken.audience,
    { scopes: privateToken.scopes, allowed },
    command.scopes,
  );
  if (!scopes.ok) return scopeRefused(scopes, privateToken.audience);
  const { mayAct } = command;
  const kept = reserveDelegatedScopes(policy.catalog, privateToken.audience, {
    scopes: scopes.scopes,
    asked: command.scopes !== undefined,
    mayAct: mayAct !== undefined,
  });
  if (!kept.ok) return scopeRefused(kept, privateToken.audience);
  const reserved = kept.reserved?.length ? { may_act_scope: scopeText(kept.reserved) } : {};
  if (mayAct && !mayBeNamedActor(mayAct.agent, command.spaceId)) return refuse('may_act_unknown');
  const details = command.authorizationDetails;
  if (details && !mayAct) return refuse('details_undelegated');
  const { issued_at, expires_at, ...times } = lifetime(
    command,
    mayAct ? Math.min(policy.ttlSeconds, DELEGABLE_TOKEN_TTL_SECONDS) : policy.ttlSeconds,
    privateToken.expiresAt,
  );
  const event = commandEvent(command, 'public-token-issued', {
    client_id: privateToken.clientId,
    audience: privateToken.audience,
    jti: times.jti,
    parent_jti: privateToken.jti,
    customer_id: command.customerId,
    segment_id: command.segmentId,
    issued_at,
    expires_at,
    ...binding(command),
    ...granted(kept.scopes),
    ...(mayAct ? { may_act: mayAct.clientId, ...reserved } : {}),
    ...(details ? { authorization_details: details } : {}),
  });
  const mayActScope = reserved.may_act_scope;
  return accept([event], {
    ...times,
    ...granted(kept.scopes),
    credential,
    ...(mayActScope ? { mayActScope } : {}),
  });
}

/**
 * Revoke an access token (RFC 7009) for the client it was issued to. Anything else (another
 * client's token, an expired one, one already revoked) is no change: no event.
 */
export function decideRevokeToken(
  command: {
    readonly clientId: string;
    readonly now: number;
    readonly eventId: string;
    readonly metadata: EventMetadata;
  },
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
