/** What decisions need to know about a credential (from the inline read model). */
export interface CredentialView {
  readonly clientId: string;
  readonly spaceId: string;
  readonly status: 'active' | 'revoked';
  readonly secretHash: Buffer;
}
