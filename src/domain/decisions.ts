import type { Clock, IdGenerator } from './ports.js';
import { domainEvent, type DomainEvent, type EventMetadata } from './events.js';
import type { CredentialView } from './credential-view.js';

/**
 * Pure decisions: given a command and the state it needs, what happens. No I/O here; the command
 * handlers in src/commands load state, call these, and append what they return.
 */

/** Create a credential in a space for a dashboard user. */
export function decideCreateCredential(
  command: {
    readonly spaceId: string;
    readonly name: string;
    readonly description: string;
    readonly userSubject: string;
    readonly loginIssuer: string;
    readonly clientId: string;
    readonly secretHash: string;
    readonly rateLimitPerMinute?: number | null;
    readonly metadata: EventMetadata;
  },
  ids: IdGenerator,
): DomainEvent<'credential-created'> {
  return domainEvent(
    ids.eventId(),
    'credential-created',
    {
      client_id: command.clientId,
      name: command.name,
      description: command.description,
      secret_hash: command.secretHash,
      created_by: command.userSubject,
      login_issuer: command.loginIssuer,
      ...(command.rateLimitPerMinute ? { rate_limit_per_minute: command.rateLimitPerMinute } : {}),
    },
    command.metadata,
  );
}

/** Issue and expiry times (seconds) and a new token id; expiry never past `notAfter`. */
function tokenLifetime(
  clock: Clock,
  ids: IdGenerator,
  ttlSeconds: number,
  notAfter = Number.POSITIVE_INFINITY,
) {
  const issuedAt = Math.floor(clock.now() / 1000);
  const expiresAt = Math.min(issuedAt + ttlSeconds, notAfter);
  return {
    jti: ids.tokenId(),
    issuedAt,
    expiresAt,
    issued_at: new Date(issuedAt * 1000).toISOString(),
    expires_at: new Date(expiresAt * 1000).toISOString(),
  };
}

/** The outcome of a client_credentials grant. */
export type PrivateTokenDecision =
  | {
      readonly ok: true;
      /** The credential that authenticated; the token is issued for it. */
      readonly credential: CredentialView;
      readonly event: DomainEvent<'private-token-issued'>;
      readonly jti: string;
      readonly issuedAt: number;
      readonly expiresAt: number;
    }
  | {
      readonly ok: false;
      readonly error: 'invalid_client' | 'invalid_target';
      /** Recorded so abuse of a known client shows on the dashboards. */
      readonly failure?: DomainEvent<'client-authentication-failed'>;
    };

/**
 * The secret hashes that authenticate `credential` at `nowMs`: the current one and, while a
 * rotation's overlap runs, the one it replaced. Always two entries (null where none), so callers
 * compare the same number of times whatever the state.
 */
export function acceptedSecretHashes(
  credential: CredentialView | undefined,
  nowMs: number,
): readonly [Buffer | null, Buffer | null] {
  if (!credential) return [null, null];
  const overlap =
    credential.previousSecretHash &&
    credential.previousSecretExpiresAt !== null &&
    nowMs < credential.previousSecretExpiresAt
      ? credential.previousSecretHash
      : null;
  return [credential.secretHash, overlap];
}

/** The outcome of authenticating a client by its id and secret. */
export type ClientAuthentication =
  | { readonly ok: true; readonly credential: CredentialView }
  | {
      readonly ok: false;
      /** Recorded so abuse of a known client shows on the dashboards (none for unknown ids). */
      readonly failure?: DomainEvent<'client-authentication-failed'>;
    };

/** Authenticate a client. `secretMatches` is computed in constant time by the caller. */
export function decideClientAuthentication(
  credential: CredentialView | undefined,
  secretMatches: boolean,
  metadata: EventMetadata,
  ids: IdGenerator,
): ClientAuthentication {
  if (!credential) return { ok: false };
  if (secretMatches && credential.status === 'active') return { ok: true, credential };
  return {
    ok: false,
    failure: domainEvent(
      ids.eventId(),
      'client-authentication-failed',
      {
        client_id: credential.clientId,
        reason: secretMatches ? 'credential_revoked' : 'secret_mismatch',
      },
      metadata,
    ),
  };
}

/** Decide a client_credentials grant. `secretMatches` is computed in constant time by the caller. */
export function decideIssuePrivateToken(
  command: {
    readonly clientId: string;
    readonly audience: string;
    readonly metadata: EventMetadata;
  },
  found: CredentialView | undefined,
  secretMatches: boolean,
  policy: { readonly audiences: readonly string[]; readonly ttlSeconds: number },
  clock: Clock,
  ids: IdGenerator,
): PrivateTokenDecision {
  const authentication = decideClientAuthentication(found, secretMatches, command.metadata, ids);
  if (!authentication.ok) {
    return authentication.failure
      ? { ok: false, error: 'invalid_client', failure: authentication.failure }
      : { ok: false, error: 'invalid_client' };
  }
  const { credential } = authentication;
  if (!policy.audiences.includes(command.audience)) return { ok: false, error: 'invalid_target' };
  const { jti, issuedAt, expiresAt, issued_at, expires_at } = tokenLifetime(
    clock,
    ids,
    policy.ttlSeconds,
  );
  return {
    ok: true,
    credential,
    jti,
    issuedAt,
    expiresAt,
    event: domainEvent(
      ids.eventId(),
      'private-token-issued',
      { client_id: credential.clientId, audience: command.audience, jti, issued_at, expires_at },
      command.metadata,
    ),
  };
}

/** The outcome of a public-token request. */
export type PublicTokenDecision =
  | {
      readonly ok: true;
      /** The active credential behind the private token. */
      readonly credential: CredentialView;
      readonly event: DomainEvent<'public-token-issued'>;
      readonly jti: string;
      readonly issuedAt: number;
      readonly expiresAt: number;
    }
  | { readonly ok: false; readonly error: 'space_mismatch' | 'credential_inactive' };

/**
 * Decide a public token for a customer and segment, on the strength of a verified private token.
 * A public token never outlives the private token that bought it.
 */
export function decideIssuePublicToken(
  command: {
    readonly spaceId: string;
    readonly customerId: string;
    readonly segmentId: string;
    readonly metadata: EventMetadata;
  },
  privateToken: {
    readonly clientId: string;
    readonly spaceId: string;
    readonly audience: string;
    readonly jti: string;
    readonly expiresAt: number;
  },
  credential: CredentialView | undefined,
  policy: { readonly ttlSeconds: number },
  clock: Clock,
  ids: IdGenerator,
): PublicTokenDecision {
  if (command.spaceId !== privateToken.spaceId) return { ok: false, error: 'space_mismatch' };
  if (
    !credential ||
    credential.status !== 'active' ||
    credential.spaceId !== privateToken.spaceId
  ) {
    return { ok: false, error: 'credential_inactive' };
  }
  const { jti, issuedAt, expiresAt, issued_at, expires_at } = tokenLifetime(
    clock,
    ids,
    policy.ttlSeconds,
    privateToken.expiresAt,
  );
  return {
    ok: true,
    credential,
    jti,
    issuedAt,
    expiresAt,
    event: domainEvent(
      ids.eventId(),
      'public-token-issued',
      {
        client_id: privateToken.clientId,
        audience: privateToken.audience,
        jti,
        parent_jti: privateToken.jti,
        customer_id: command.customerId,
        segment_id: command.segmentId,
        issued_at,
        expires_at,
      },
      command.metadata,
    ),
  };
}

/** Who asks for a lifecycle change, from where. */
interface LifecycleCommand {
  readonly spaceId: string;
  readonly clientId: string;
  readonly actor: string;
  readonly metadata: EventMetadata;
}

/** Why a lifecycle change on a credential cannot happen. */
export type CredentialRefusal = 'not_found' | 'revoked';

/** The credential, when it exists in the command's space (never reveal another space's). */
function inSpace(command: LifecycleCommand, credential: CredentialView | undefined) {
  return credential && credential.spaceId === command.spaceId ? credential : undefined;
}

/**
 * Rotate a credential's secret: the new one works at once, the current one until the overlap
 * ends. A rotation during an overlap ends the oldest secret at once: at most two are ever valid.
 */
export function decideRotateSecret(
  command: LifecycleCommand & { readonly newSecretHash: string; readonly overlapSeconds: number },
  found: CredentialView | undefined,
  clock: Clock,
  ids: IdGenerator,
):
  | {
      readonly ok: true;
      readonly credential: CredentialView;
      readonly event: DomainEvent<'credential-secret-rotated'>;
      readonly previousSecretExpiresAt: Date;
    }
  | { readonly ok: false; readonly error: CredentialRefusal } {
  const credential = inSpace(command, found);
  if (!credential) return { ok: false, error: 'not_found' };
  if (credential.status !== 'active') return { ok: false, error: 'revoked' };
  const previousSecretExpiresAt = new Date(clock.now() + command.overlapSeconds * 1000);
  return {
    ok: true,
    credential,
    previousSecretExpiresAt,
    event: domainEvent(
      ids.eventId(),
      'credential-secret-rotated',
      {
        client_id: credential.clientId,
        secret_hash: command.newSecretHash,
        overlap_seconds: command.overlapSeconds,
        previous_secret_expires_at: previousSecretExpiresAt.toISOString(),
        rotated_by: command.actor,
      },
      command.metadata,
    ),
  };
}

/**
 * Revoke a credential. Revoking a revoked credential changes nothing and records nothing
 * (`event` is undefined then).
 */
export function decideRevokeCredential(
  command: LifecycleCommand & { readonly reason: string | null },
  found: CredentialView | undefined,
  ids: IdGenerator,
):
  | {
      readonly ok: true;
      readonly credential: CredentialView;
      readonly event?: DomainEvent<'credential-revoked'>;
    }
  | { readonly ok: false; readonly error: 'not_found' } {
  const credential = inSpace(command, found);
  if (!credential) return { ok: false, error: 'not_found' };
  if (credential.status === 'revoked') return { ok: true, credential };
  return {
    ok: true,
    credential,
    event: domainEvent(
      ids.eventId(),
      'credential-revoked',
      { client_id: credential.clientId, reason: command.reason, revoked_by: command.actor },
      command.metadata,
    ),
  };
}

/**
 * Revoke an access token (RFC 7009) for the client it was issued to. Anything else (another
 * client's token, an expired one, one already revoked) is no change: undefined.
 */
export function decideRevokeToken(
  command: { readonly clientId: string; readonly metadata: EventMetadata },
  token: {
    readonly clientId: string;
    readonly jti: string;
    readonly kind: 'private' | 'public';
    readonly expiresAt: number;
  },
  alreadyRevoked: boolean,
  clock: Clock,
  ids: IdGenerator,
): DomainEvent<'token-revoked'> | undefined {
  if (token.clientId !== command.clientId || alreadyRevoked) return undefined;
  if (token.expiresAt * 1000 <= clock.now()) return undefined;
  return domainEvent(
    ids.eventId(),
    'token-revoked',
    {
      client_id: token.clientId,
      jti: token.jti,
      token_kind: token.kind,
      expires_at: new Date(token.expiresAt * 1000).toISOString(),
      revoked_by: `client:${command.clientId}`,
    },
    command.metadata,
  );
}

/** Set or clear a credential's own rate limit. Setting the value it has changes nothing. */
export function decideChangeRateLimit(
  command: LifecycleCommand & { readonly rateLimitPerMinute: number | null },
  found: CredentialView | undefined,
  ids: IdGenerator,
):
  | {
      readonly ok: true;
      readonly credential: CredentialView;
      readonly event?: DomainEvent<'credential-rate-limit-changed'>;
    }
  | { readonly ok: false; readonly error: CredentialRefusal } {
  const credential = inSpace(command, found);
  if (!credential) return { ok: false, error: 'not_found' };
  if (credential.status !== 'active') return { ok: false, error: 'revoked' };
  if (credential.rateLimitPerMinute === command.rateLimitPerMinute) return { ok: true, credential };
  return {
    ok: true,
    credential,
    event: domainEvent(
      ids.eventId(),
      'credential-rate-limit-changed',
      {
        client_id: credential.clientId,
        rate_limit_per_minute: command.rateLimitPerMinute,
        changed_by: command.actor,
      },
      command.metadata,
    ),
  };
}
