import type { Recorded } from '../events.js';
import type { Credential } from './state.js';

/** The events of a credential's stream. */
export type CredentialEvent = Recorded<
  | 'credential-created'
  | 'credential-secret-rotated'
  | 'credential-revoked'
  | 'credential-rate-limit-changed'
  | 'credential-keys-changed'
  | 'credential-scopes-changed'
  | 'credential-redirect-uris-changed'
>;

/** The credential after `event`. Pure; the `credentials` row is this state, written inline. */
export function evolveCredential(
  state: Credential | undefined,
  event: CredentialEvent,
): Credential {
  const at = event.recordedAt.getTime();
  const touched = { version: event.streamPosition, updatedAt: at };
  if (event.type === 'credential-created') {
    const { data } = event;
    return {
      clientId: data.client_id,
      spaceId: event.spaceId,
      name: data.name,
      description: data.description,
      createdBy: data.created_by,
      status: 'active',
      secretHash: data.secret_hash ? Buffer.from(data.secret_hash, 'base64url') : null,
      jwks: data.jwks ?? null,
      requireDpop: data.require_dpop ?? false,
      previousSecretHash: null,
      previousSecretExpiresAt: null,
      revokedAt: null,
      revokedReason: null,
      rateLimitPerMinute: data.rate_limit_per_minute ?? null,
      scopes: data.scopes ?? null,
      scopesNarrowedAt: null,
      redirectUris: data.redirect_uris ?? [],
      createdAt: at,
      ...touched,
    };
  }
  if (!state) throw new Error(`${event.type} before credential-created`);
  switch (event.type) {
    case 'credential-secret-rotated':
      // The replaced secret overlaps; one replaced earlier ends now: never more than two valid.
      return {
        ...state,
        ...touched,
        previousSecretHash: state.secretHash,
        previousSecretExpiresAt: Date.parse(event.data.previous_secret_expires_at),
        secretHash: Buffer.from(event.data.secret_hash, 'base64url'),
      };
    case 'credential-revoked':
      return {
        ...state,
        ...touched,
        status: 'revoked',
        revokedAt: at,
        revokedReason: event.data.reason,
        previousSecretHash: null,
        previousSecretExpiresAt: null,
      };
    case 'credential-rate-limit-changed':
      return { ...state, ...touched, rateLimitPerMinute: event.data.rate_limit_per_minute };
    case 'credential-redirect-uris-changed':
      return { ...state, ...touched, redirectUris: event.data.redirect_uris };
    case 'credential-keys-changed':
      return { ...state, ...touched, jwks: event.data.jwks };
    case 'credential-scopes-changed':
      return {
        ...state,
        ...touched,
        scopes: event.data.scopes,
        scopesNarrowedAt: event.data.removed.length > 0 ? at : state.scopesNarrowedAt,
      };
  }
}
