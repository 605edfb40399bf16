import type { ClientJwks } from '../events.js';

/** A credential as its events leave it: what `decide` judges, and the `credentials` row. */
export interface Credential {
  readonly clientId: string;
  readonly spaceId: string;
  readonly name: string;
  readonly description: string;
  readonly createdBy: string;
  readonly status: 'active' | 'revoked';
  /** HMAC-SHA-256 of the secret under the server key. Never the secret. Null: keys instead. */
  readonly secretHash: Buffer | null;
  /** The public keys of a secretless client (private_key_jwt); null for a secret's. */
  readonly jwks: ClientJwks | null;
  readonly requireDpop: boolean;
  /** The secret a rotation replaced, valid until `previousSecretExpiresAt` (ms since epoch). */
  readonly previousSecretHash: Buffer | null;
  readonly previousSecretExpiresAt: number | null;
  /** When it was revoked (ms since epoch); tokens issued before then are revoked with it. */
  readonly revokedAt: number | null;
  readonly revokedReason: string | null;
  /** This client's budget per minute, overriding CLIENT_RATE_LIMIT_PER_MINUTE; null: default. */
  readonly rateLimitPerMinute: number | null;
  /** Whose budget and failure count it spends when not its own: a metadata document's domain's. */
  readonly budgetKey?: string;
  /** The scopes its tokens may carry; null: recorded before scopes, the catalog's defaults. */
  readonly scopes: readonly string[] | null;
  /** Where /authorize may send its browser back; empty: not a code-flow client. */
  readonly redirectUris: readonly string[];
  /** When a change last took a scope away (ms since epoch); null: never. */
  readonly scopesNarrowedAt: number | null;
  /** Position of the last event in the credential's stream (optimistic concurrency). */
  readonly version: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Current and overlapping hashes, always two (null if none) so compares take the same time. */
export function acceptedSecretHashes(
  credential: Credential | undefined,
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
