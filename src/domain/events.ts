import { z } from 'zod';

/**
 * The events of this service and the schema of each one's data. Every event is validated against
 * its schema before append and when read back, so a payload can never drift silently.
 */

/** Who did it and from where; recorded with every event. Never holds a credential. */
export const eventMetadataSchema = z.object({
  actor: z.string(),
  request_id: z.string(),
  client_ip: z.string(),
  user_agent: z.string().nullable(),
});
export type EventMetadata = z.infer<typeof eventMetadataSchema>;

export const credentialCreatedSchema = z.object({
  client_id: z.string(),
  name: z.string(),
  description: z.string(),
  /** HMAC-SHA-256 of the secret under the server key, base64url. Never the secret. */
  secret_hash: z.string(),
  created_by: z.string(),
  login_issuer: z.string(),
  /** Overrides CLIENT_RATE_LIMIT_PER_MINUTE for this client; absent or null: the default. */
  rate_limit_per_minute: z.number().int().min(1).max(1_000_000_000).nullable().optional(),
});

export const credentialRateLimitChangedSchema = z.object({
  client_id: z.string(),
  /** Null: back to the service default. */
  rate_limit_per_minute: z.number().int().min(1).max(1_000_000_000).nullable(),
  changed_by: z.string(),
});

/**
 * Failed authentications of one client in one minute past the per-minute event budget: counted,
 * not recorded one by one, so no attacker can grow the immutable log without bound.
 */
export const clientAuthenticationFailuresSummarizedSchema = z.object({
  client_id: z.string(),
  window_start: z.iso.datetime(),
  window_end: z.iso.datetime(),
  /** Attempts whose secret was checked and wrong, beyond the recorded ones. */
  failed: z.number().int().min(0),
  /** Attempts refused unchecked because their (client, IP) was over the failed-auth budget. */
  refused_while_locked_out: z.number().int().min(0),
  /** Source IPs seen (the first 50), and how many there were in all. */
  source_ips: z.array(z.string()).max(50),
  source_ip_count: z.number().int().min(0),
});

export const privateTokenIssuedSchema = z.object({
  client_id: z.string(),
  audience: z.string(),
  jti: z.string(),
  issued_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
});

export const publicTokenIssuedSchema = z.object({
  client_id: z.string(),
  audience: z.string(),
  jti: z.string(),
  parent_jti: z.string(),
  customer_id: z.string(),
  segment_id: z.string(),
  issued_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
});

export const clientAuthenticationFailedSchema = z.object({
  client_id: z.string(),
  /** Why; the secret that was tried is never recorded. */
  reason: z.enum(['secret_mismatch', 'credential_revoked']),
});

export const credentialSecretRotatedSchema = z.object({
  client_id: z.string(),
  /** HMAC-SHA-256 of the new secret, base64url. Never the secret. */
  secret_hash: z.string(),
  overlap_seconds: z.number().int().min(0),
  /** Until when the replaced secret still works. */
  previous_secret_expires_at: z.iso.datetime(),
  rotated_by: z.string(),
});

export const credentialRevokedSchema = z.object({
  client_id: z.string(),
  reason: z.string().nullable(),
  revoked_by: z.string(),
});

export const tokenRevokedSchema = z.object({
  client_id: z.string(),
  jti: z.string(),
  token_kind: z.enum(['private', 'public']),
  expires_at: z.iso.datetime(),
  revoked_by: z.string(),
});

export const signingKeyGeneratedSchema = z.object({
  kid: z.string(),
  alg: z.string(),
  activates_at: z.iso.datetime(),
  reason: z.enum(['first_key', 'rotation', 'replaces_retired']),
});

export const signingKeyRetiredSchema = z.object({
  kid: z.string(),
  /** When it leaves the JWKS: now for a withdrawal, later for a rotation's predecessor. */
  retired_at: z.iso.datetime(),
  reason: z.enum(['compromised', 'rotated']),
});

/**
 * The registry: event type name → data schema. Adding an event type starts here; see "Adding an
 * event type" in docs/architecture.md for what the compiler then asks for.
 */
export const EVENT_SCHEMAS = {
  'credential-created': credentialCreatedSchema,
  'private-token-issued': privateTokenIssuedSchema,
  'public-token-issued': publicTokenIssuedSchema,
  'client-authentication-failed': clientAuthenticationFailedSchema,
  'credential-secret-rotated': credentialSecretRotatedSchema,
  'credential-revoked': credentialRevokedSchema,
  'token-revoked': tokenRevokedSchema,
  'signing-key-generated': signingKeyGeneratedSchema,
  'signing-key-retired': signingKeyRetiredSchema,
  'credential-rate-limit-changed': credentialRateLimitChangedSchema,
  'client-authentication-failures-summarized': clientAuthenticationFailuresSummarizedSchema,
} as const;

export type EventType = keyof typeof EVENT_SCHEMAS;

/**
 * Every event type, from the registry above. Consumers that must decide what to do with each type
 * key a `satisfies Record<EventType, …>` on it, so a new type is a compile error until handled.
 */
export const EVENT_TYPES = Object.freeze(Object.keys(EVENT_SCHEMAS)) as readonly EventType[] &
  readonly [EventType, ...EventType[]];
export type EventData<Type extends EventType> = z.infer<(typeof EVENT_SCHEMAS)[Type]>;

/** A domain event ready for the store: type, data and metadata, all validated. */
export interface DomainEvent<Type extends EventType = EventType> {
  readonly eventId: string;
  readonly type: Type;
  readonly data: EventData<Type>;
  readonly metadata: EventMetadata;
}

/** Builds a domain event, validating data and metadata against their schemas. */
export function domainEvent<Type extends EventType>(
  eventId: string,
  type: Type,
  data: EventData<Type>,
  metadata: EventMetadata,
): DomainEvent<Type> {
  return {
    eventId,
    type,
    data: EVENT_SCHEMAS[type].parse(data) as EventData<Type>,
    metadata: eventMetadataSchema.parse(metadata),
  };
}

/** Parses the data of a recorded event of a known type; undefined for types we do not know. */
export function parseEventData<Type extends EventType>(type: Type, data: unknown): EventData<Type>;
export function parseEventData(type: string, data: unknown): unknown;
export function parseEventData(type: string, data: unknown): unknown {
  const schema = (EVENT_SCHEMAS as Record<string, z.ZodType>)[type];
  return schema ? schema.parse(data) : undefined;
}

/** Stream naming: one stream per credential, one short stream per issued token or failure. */
export const streams = {
  credential: (clientId: string) => `credential-${clientId}`,
  token: (jti: string) => `token-${jti}`,
  authenticationFailure: (eventId: string) => `auth-failure-${eventId}`,
  failureSummary: (eventId: string) => `auth-failure-summary-${eventId}`,
  signingKey: (kid: string) => `signing-key-${kid}`,
} as const;

/** Events about the service itself (signing keys) belong to no customer space. */
export const SYSTEM_SPACE = '_system';
