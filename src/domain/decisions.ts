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

/** Decide a client_credentials grant. `secretMatches` is computed in constant time by the caller. */
export function decideIssuePrivateToken(
  command: {
    readonly clientId: string;
    readonly audience: string;
    readonly metadata: EventMetadata;
  },
  credential: CredentialView | undefined,
  secretMatches: boolean,
  policy: { readonly audiences: readonly string[]; readonly ttlSeconds: number },
  clock: Clock,
  ids: IdGenerator,
): PrivateTokenDecision {
  if (!credential) return { ok: false, error: 'invalid_client' };
  if (!secretMatches || credential.status !== 'active') {
    return {
      ok: false,
      error: 'invalid_client',
      failure: domainEvent(
        ids.eventId(),
        'client-authentication-failed',
        {
          client_id: credential.clientId,
          reason: secretMatches ? 'credential_revoked' : 'secret_mismatch',
        },
        command.metadata,
      ),
    };
  }
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
