/** What decisions need to know about a credential (from the inline read model). */
export interface CredentialView {
  readonly clientId: string;
  readonly spaceId: string;
  readonly status: 'active' | 'revoked';
  readonly secretHash: Buffer;
  /** The secret a rotation replaced, valid until `previousSecretExpiresAt` (ms since epoch). */
  readonly previousSecretHash: Buffer | null;
  readonly previousSecretExpiresAt: number | null;
  /** When it was revoked (ms since epoch); tokens issued before then are revoked with it. */
  readonly revokedAt: number | null;
  /** Position of the last event in the credential's stream (optimistic concurrency). */
  readonly version: number;
  /** This client's budget per minute, overriding CLIENT_RATE_LIMIT_PER_MINUTE; null: default. */
  readonly rateLimitPerMinute: number | null;
}
