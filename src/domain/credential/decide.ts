import { commandEvent, type ClientJwks, type DomainEvent, type Asked } from '../events.js';
import type { Credential } from './state.js';
import { accept, refuse, type Decision } from '../decision.js';
import { allowedScopes, credentialScopes, missingScopes, withinSpaceCeiling } from '../policy.js';
import { credentialActive, credentialInSpace } from '../policy.js';
import { scopeText } from '#verifier/scope.js';
import type { ScopeCatalog } from '../scope-catalog.js';
import { msOf } from '../times.js';

/** Why a change to a credential cannot happen. */
export type CredentialRefusal =
  | 'not_found'
  | 'revoked'
  | 'wrong_method'
  | 'over_space_ceiling'
  /** A scope no audience's catalog lists; the decision's `detail` names it. */
  | 'invalid_scope';

/** What a decision on a credential returns: the events to append, or why not. */
export type CredentialDecision<Type extends DomainEvent['type']> = Decision<
  DomainEvent<Type>,
  CredentialRefusal
>;

/** A change to an existing credential, asked for in a space by a dashboard user. */
export interface LifecycleCommand extends Asked {
  readonly spaceId: string;
  readonly clientId: string;
  readonly actor: string;
}

/** A credential asked for by a dashboard user, its id and secret's hash (or keys) made. */
export interface CreateCredentialCommand extends Asked {
  readonly clientId: string;
  /** Exactly one: a secret's hash, or a secretless client's public keys (private_key_jwt). */
  readonly secretHash?: string;
  readonly jwks?: ClientJwks;
  /** Every public token this client issues must be DPoP-bound. */
  readonly requireDpop?: boolean;
  readonly name: string;
  readonly description: string;
  readonly userSubject: string;
  readonly loginIssuer: string;
  readonly rateLimitPerMinute?: number | null;
  /** The space's ceiling, which the client's own limit may not exceed. */
  readonly spaceCeiling: number;
  /** The scopes asked for; none: the catalog's defaults. */
  readonly scopes?: readonly string[];
  readonly catalog: ScopeCatalog;
  /** Where /authorize may send its browser back: a code-flow client too. */
  readonly redirectUris?: readonly string[];
}

/** Create a credential in a space for a dashboard user. Nothing exists yet, so nothing refuses. */
export function decideCreateCredential(
  command: CreateCredentialCommand,
): Decision<DomainEvent<'credential-created'>, 'over_space_ceiling' | 'invalid_scope'> {
  if (!withinSpaceCeiling(command.rateLimitPerMinute, command.spaceCeiling)) {
    return refuse('over_space_ceiling');
  }
  const scopes = credentialScopes(command.catalog, command.scopes);
  if (!scopes.ok) return refuse('invalid_scope', [], scopes.scope);
  return accept([
    commandEvent(command, 'credential-created', {
      client_id: command.clientId,
      name: command.name,
      description: command.description,
      ...(command.secretHash ? { secret_hash: command.secretHash } : {}),
      ...(command.jwks ? { jwks: command.jwks } : {}),
      ...(command.requireDpop ? { require_dpop: true } : {}),
      created_by: command.userSubject,
      login_issuer: command.loginIssuer,
      ...(command.rateLimitPerMinute ? { rate_limit_per_minute: command.rateLimitPerMinute } : {}),
      // An empty catalog records none, so events stay as they were before scopes.
      ...(scopes.scopes.length > 0 || command.scopes !== undefined
        ? { scopes: [...scopes.scopes].sort() }
        : {}),
      ...(command.redirectUris?.length ? { redirect_uris: [...command.redirectUris] } : {}),
    }),
  ]);
}

/** The refusal for a change to a credential that must be active, if any. */
function refusal(command: LifecycleCommand, state: Credential | undefined) {
  const credential = credentialInSpace(state, command.spaceId);
  if (!credential) return 'not_found';
  return credentialActive(credential) ? undefined : 'revoked';
}

/** Rotate a secret: the new works at once, the old until the overlap ends. */
export function decideRotateSecret(
  command: LifecycleCommand & {
    readonly now: number;
    readonly newSecretHash: string;
    readonly overlapSeconds: number;
    readonly idempotencyKeyHash?: string;
  },
  state: Credential | undefined,
): CredentialDecision<'credential-secret-rotated'> {
  const refused = refusal(command, state);
  if (refused) return refuse(refused);
  // A secretless client authenticates with its keys: it gets none to rotate.
  if (!state!.secretHash) return refuse('wrong_method');
  const expiresAt = new Date(command.now + msOf(command.overlapSeconds)).toISOString();
  return accept([
    commandEvent(command, 'credential-secret-rotated', {
      client_id: command.clientId,
      secret_hash: command.newSecretHash,
      overlap_seconds: command.overlapSeconds,
      previous_secret_expires_at: expiresAt,
      rotated_by: command.actor,
      ...(command.idempotencyKeyHash ? { idempotency_key_sha256: command.idempotencyKeyHash } : {}),
    }),
  ]);
}

/** Replace a secretless client's whole key set; a secret's client has none to change. */
export function decideChangeKeys(
  command: LifecycleCommand & { readonly jwks: ClientJwks },
  state: Credential | undefined,
): CredentialDecision<'credential-keys-changed'> {
  const refused = refusal(command, state);
  if (refused) return refuse(refused);
  if (!state!.jwks) return refuse('wrong_method');
  return accept([
    commandEvent(command, 'credential-keys-changed', {
      client_id: command.clientId,
      jwks: command.jwks,
      changed_by: command.actor,
    }),
  ]);
}

/** Revoke a credential. Revoking a revoked credential changes nothing and records nothing. */
export function decideRevokeCredential(
  command: LifecycleCommand & { readonly reason: string | null; readonly compromised?: boolean },
  state: Credential | undefined,
): CredentialDecision<'credential-revoked'> {
  const credential = credentialInSpace(state, command.spaceId);
  if (!credential) return refuse('not_found');
  if (!credentialActive(credential)) return accept([]);
  return accept([
    commandEvent(command, 'credential-revoked', {
      client_id: command.clientId,
      reason: command.reason,
      revoked_by: command.actor,
      ...(command.compromised === true ? { compromised: true as const } : {}),
    }),
  ]);
}

/** Set or clear a credential's own rate limit. Setting the value it has changes nothing. */
export function decideChangeRateLimit(
  command: LifecycleCommand & {
    readonly rateLimitPerMinute: number | null;
    readonly spaceCeiling: number;
  },
  state: Credential | undefined,
): CredentialDecision<'credential-rate-limit-changed'> {
  const refused = refusal(command, state);
  if (refused) return refuse(refused);
  if (!withinSpaceCeiling(command.rateLimitPerMinute, command.spaceCeiling)) {
    return refuse('over_space_ceiling');
  }
  if (state!.rateLimitPerMinute === command.rateLimitPerMinute) return accept([]);
  return accept([
    commandEvent(command, 'credential-rate-limit-changed', {
      client_id: command.clientId,
      rate_limit_per_minute: command.rateLimitPerMinute,
      changed_by: command.actor,
    }),
  ]);
}

/** A rotation's kept answer shown to its retry; recorded: the secret leaves again. */
export function decideRecordSecretReplay(
  command: Asked & {
    readonly clientId: string;
    readonly idempotencyKeyHash: string;
    readonly actor: string;
  },
): Decision<DomainEvent<'credential-secret-replayed'>> {
  return accept([
    commandEvent(command, 'credential-secret-replayed', {
      client_id: command.clientId,
      idempotency_key_sha256: command.idempotencyKeyHash,
      replayed_to: command.actor,
    }),
  ]);
}

/** Replace a credential's scopes; live tokens carrying a removed one are refused from then on. */
export function decideChangeScopes(
  command: LifecycleCommand & {
    readonly scopes: readonly string[];
    readonly catalog: ScopeCatalog;
  },
  state: Credential | undefined,
): CredentialDecision<'credential-scopes-changed'> {
  const refused = refusal(command, state);
  if (refused) return refuse(refused);
  const granted = credentialScopes(command.catalog, command.scopes);
  if (!granted.ok) return refuse('invalid_scope', [], granted.scope);
  const before = allowedScopes(command.catalog, state!);
  const scopes = [...granted.scopes].sort();
  if (state!.scopes !== null && scopeText(before) === scopeText(scopes)) return accept([]);
  return accept([
    commandEvent(command, 'credential-scopes-changed', {
      client_id: command.clientId,
      scopes,
      removed: missingScopes(scopes, before).sort(),
      changed_by: command.actor,
    }),
  ]);
}

/** Replace where a code-flow client's browser may be sent back; none: no longer one. */
export function decideChangeRedirectUris(
  command: LifecycleCommand & { readonly redirectUris: readonly string[] },
  state: Credential | undefined,
): CredentialDecision<'credential-redirect-uris-changed'> {
  const refused = refusal(command, state);
  if (refused) return refuse(refused);
  const redirectUris = [...command.redirectUris];
  if (JSON.stringify(state!.redirectUris) === JSON.stringify(redirectUris)) return accept([]);
  return accept([
    commandEvent(command, 'credential-redirect-uris-changed', {
      client_id: command.clientId,
      redirect_uris: redirectUris,
      changed_by: command.actor,
    }),
  ]);
}
