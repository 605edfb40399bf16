import { keyedStream, newStream, type StreamRef } from '#event-log/stream-ref.js';

/** A token's stream id, for reads (stored form, proofs); appends take {@link streams}. */
export const tokenStreamId = (jti: string) => `token-${jti}`;

/**
 * Every stream the service appends to, and how it is written: new when a fresh random id names it
 * (group-committed unchecked), keyed when two callers may share its name (checked under its lock).
 * A change (of a key, the ring's: `ring`, a sink, an issuer, a domain) is one short stream. Only
 * this file makes stream refs (eslint.config.js).
 */
export const streams = {
  credential: (clientId: string) => keyedStream(`credential-${clientId}`),
  token: (jti: string) => newStream(tokenStreamId(jti)),
  /** The same stream once issued: a revocation appends at its version (two may race). */
  issuedToken: (jti: string) => keyedStream(tokenStreamId(jti)),
  authenticationFailure: (eventId: string) => newStream(`auth-failure-${eventId}`),
  failureSummary: (eventId: string) => newStream(`auth-failure-summary-${eventId}`),
  accessRefusal: (eventId: string) => newStream(`access-refused-${eventId}`),
  refusalSummary: (eventId: string) => newStream(`access-refusals-summary-${eventId}`),
  authorizationRefusal: (eventId: string) => newStream(`authorization-refused-${eventId}`),
  authorizationRefusalSummary: (eventId: string) =>
    newStream(`authorization-refusals-summary-${eventId}`),
  auditRead: (eventId: string) => newStream(`audit-read-${eventId}`),
  secretReplay: (eventId: string) => newStream(`secret-replay-${eventId}`),
  switchOverEnd: (spaceId: string) => keyedStream(`switch-over-ended-${spaceId}`),
  archive: (partition: string) => keyedStream(`archive-${partition}`),
  metadataClient: (spaceId: string, clientId: string) =>
    keyedStream(`metadata-client-${spaceId}-${clientId}`),
  signingKeyChange: (kid: string, eventId: string) => newStream(`signing-key-${kid}-${eventId}`),
  sinkChange: (sinkId: string, eventId: string) => newStream(`sink-${sinkId}-${eventId}`),
  /** SETs a stream's receiver acknowledged: a record per delivery. */
  signalsDelivered: (sinkId: string, eventId: string) =>
    newStream(`signals-delivered-${sinkId}-${eventId}`),
  /** A status list's published versions, in order: replicas publishing at once, checked. */
  statusList: (spaceId: string, listId: string) => keyedStream(`status-list-${spaceId}-${listId}`),
  trustedIssuerChange: (issuerId: string, eventId: string) =>
    newStream(`trusted-issuer-${issuerId}-${eventId}`),
  metadataDomainChange: (domain: string, eventId: string) =>
    newStream(`metadata-client-domain-${domain}-${eventId}`),
  /** A space's authorization app, and each authorization request (issue 64): state in a row. */
  authorizationApp: (spaceId: string) => keyedStream(`authorization-app-${spaceId}`),
  authorizationRequest: (requestId: string) => keyedStream(`authorization-${requestId}`),
} as const;

/** Where a decision's events go. */
export interface Placed<Ref extends StreamRef = StreamRef> {
  readonly spaceId: string;
  readonly stream: Ref;
}

/** Events about the service itself (signing keys) belong to no customer space. */
export const SYSTEM_SPACE = '_system';
