import type { OperatorIssuer } from '../../domain/trusted-issuer/operator-issuers.js';
import type { TrustedIssuerState } from '../../domain/trusted-issuer/decide.js';
import type { IssuerKeys } from './issuer-keys.js';
import type { MetadataClientDomain } from '../../domain/metadata-client/decide.js';
import type { MetadataDocuments } from './metadata-document.js';

/** The process's outbound GETs, one shared by issuers' keys and metadata documents. */
export { createGuardedFetcher as createOutboundFetcher } from '#outbound/guarded-fetcher.js';

/** What the token endpoint uses to take a client ID metadata document's URL as a client. */
export interface MetadataClientPorts {
  /** The space's live allowed domain of this host name (the read model of its events). */
  domain(spaceId: string, domain: string): Promise<MetadataClientDomain | undefined>;
  readonly documents: MetadataDocuments;
  /** Whether this process already recorded (space, URL)'s first use; bounded. */
  readonly seen: { has(key: string): boolean; add(key: string): void };
}

/** What the jwt-bearer grant uses to judge a trusted issuer's assertion. */
export interface TrustedIssuerPorts {
  /** The space's live issuer of this `iss` (the read model of the trusted-issuer events). */
  find(spaceId: string, iss: string): Promise<TrustedIssuerState | undefined>;
  /** Drops what this process holds of a space's issuers, after its admins changed them. */
  forget?(spaceId: string): void;
  /** TRUSTED_ISSUERS: the operator's, listed to the spaces they serve, changed by none. */
  readonly operator?: readonly OperatorIssuer[];
  readonly keys: IssuerKeys;
  /** JWT_BEARER_MAX_LIFETIME_SECONDS: how far past `iat` an assertion may expire. */
  readonly maxLifetimeSeconds: number;
  /** JWT_BEARER_MAX_LIFETIME_CEILING_SECONDS: bounds an issuer's own, even one set before. */
  readonly lifetimeCeiling: number;
  /** JWT_BEARER_CLOCK_SKEW_SECONDS. */
  readonly clockSkewSeconds: number;
}
