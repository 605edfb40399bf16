/** Stream naming: one stream per credential, one short stream per issued token or failure. */
export const streams = {
  credential: (clientId: string) => `credential-${clientId}`,
  token: (jti: string) => `token-${jti}`,
  authenticationFailure: (eventId: string) => `auth-failure-${eventId}`,
  failureSummary: (eventId: string) => `auth-failure-summary-${eventId}`,
  accessRefusal: (eventId: string) => `access-refused-${eventId}`,
  refusalSummary: (eventId: string) => `access-refusals-summary-${eventId}`,
  auditRead: (eventId: string) => `audit-read-${eventId}`,
  secretReplay: (eventId: string) => `secret-replay-${eventId}`,
  signingKey: (kid: string) => `signing-key-${kid}`,
  switchOverEnd: (spaceId: string) => `switch-over-ended-${spaceId}`,
  archive: (partition: string) => `archive-${partition}`,
  /** An audit sink's history: one short stream per change, as its row is written beside it. */
  sinkChange: (sinkId: string, eventId: string) => `sink-${sinkId}-${eventId}`,
  /** A trusted issuer's history: one short stream per change, as its row is written beside it. */
  trustedIssuerChange: (issuerId: string, eventId: string) =>
    `trusted-issuer-${issuerId}-${eventId}`,
} as const;

/** Events about the service itself (signing keys) belong to no customer space. */
export const SYSTEM_SPACE = '_system';
