import type { TrustedIssuerState } from '../../domain/trusted-issuer/decide.js';
import type { IssuerKeys } from './issuer-keys.js';

/** What the jwt-bearer grant uses to judge a trusted issuer's assertion. */
export interface TrustedIssuerPorts {
  /** The space's live issuer of this `iss` (the read model of the trusted-issuer events). */
  find(spaceId: string, iss: string): Promise<TrustedIssuerState | undefined>;
  /** Drops what this process holds of a space's issuers, after its admins changed them. */
  forget?(spaceId: string): void;
  readonly keys: IssuerKeys;
  /** JWT_BEARER_MAX_LIFETIME_SECONDS: how far past `iat` an assertion may expire. */
  readonly maxLifetimeSeconds: number;
  /** JWT_BEARER_MAX_LIFETIME_CEILING_SECONDS: bounds an issuer's own, even one set before. */
  readonly lifetimeCeiling: number;
  /** JWT_BEARER_CLOCK_SKEW_SECONDS. */
  readonly clockSkewSeconds: number;
}
