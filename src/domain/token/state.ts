/** An access token as its events leave it: issued to a client, perhaps revoked. */
export interface Token {
  readonly jti: string;
  readonly clientId: string;
  readonly kind: 'private' | 'public';
  /** Seconds since the epoch, as in the JWT. */
  readonly expiresAt: number;
  /** When it was revoked (ms since epoch), or null. */
  readonly revokedAt: number | null;
}
