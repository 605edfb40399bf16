import { z } from 'zod';
import { EVENT_TYPES } from '../../domain/events.js';

/*
 * The bodies our endpoints answer with. Handlers build their bodies `satisfies` these types, so a
 * field added in code and not here (or the reverse) does not compile; the OpenAPI document is
 * generated from them, and the integration tests validate real responses against that document.
 */

/** An instant as every body writes it: ISO 8601 with an offset. */
export const timestamp = z.iso.datetime({ offset: true });

type DeepReadonly<T> = T extends (infer Item)[]
  ? readonly DeepReadonly<Item>[]
  : T extends object
    ? { readonly [Key in keyof T]: DeepReadonly<T[Key]> }
    : T;

/** What a handler may assign as the body of a response documented by `Schema`. */
export type Body<Schema extends z.ZodType> = DeepReadonly<z.input<Schema>>;

/** A credential as every read endpoint returns it: never its secret nor a hash of it. */
export const credentialRecord = z.object({
  client_id: z.string(),
  name: z.string(),
  description: z.string(),
  space_id: z.string(),
  status: z.enum(['active', 'revoked']),
  created_at: timestamp,
  last_updated: timestamp,
  last_used_at: timestamp.nullable(),
  rate_limit_per_minute: z.number().int().nullable(),
  scopes: z
    .array(z.string())
    .describe("The scopes its tokens may carry (recorded before scopes: the catalog's defaults)"),
  redirect_uris: z.array(z.string()).optional().describe('Where /authorize sends the browser back'),
  previous_secret_expires_at: timestamp.optional(),
  revoked_at: timestamp.optional(),
});

/** POST /v1/credential: the record plus the secret, shown this once. */
export const createdCredential = credentialRecord.extend({
  client_secret: z
    .string()
    .optional()
    .describe('Shown once; only a keyed hash is stored. Absent for a client with keys.'),
  token_endpoint_auth_method: z.enum(['client_secret_basic', 'private_key_jwt']),
  ttl: z.null(),
});

export const credentialPage = z.object({
  items: z.array(credentialRecord),
  next_cursor: z.string().nullable(),
});

export const rotatedSecret = z.object({
  client_id: z.string(),
  client_secret: z.string().describe('Shown once.'),
  previous_secret_expires_at: timestamp,
});

/** RFC 6749 §5.1. */
export const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.enum(['Bearer', 'DPoP']),
  expires_in: z.number().int(),
  /** RFC 6749 §5.1: the granted scopes, space-delimited; absent when none were granted. */
  scope: z.string().optional(),
});

/** What the token endpoint answers: RFC 8693's `issued_token_type` for a token exchange. */
export const grantResponse = tokenResponse.extend({
  issued_token_type: z.literal('urn:ietf:params:oauth:token-type:access_token').optional(),
});

/** The spec's `token`, with the RFC 8693 names beside it. */
export const publicTokenResponse = tokenResponse.extend({
  token: z.string(),
  issued_token_type: z.literal('urn:ietf:params:oauth:token-type:access_token'),
});

/** RFC 7662 §2.2. */
export const introspection = z.union([
  z.object({ active: z.literal(false) }),
  z.object({
    active: z.literal(true),
    token_type: z.enum(['Bearer', 'DPoP']),
    cnf: z.object({ jkt: z.string() }).optional(),
    scope: z.string().optional(),
    client_id: z.string(),
    sub: z.string(),
    aud: z.union([z.string(), z.array(z.string())]),
    iss: z.string(),
    exp: z.number().int(),
    iat: z.number().int(),
    jti: z.string(),
    space_id: z.string(),
    token_kind: z.enum(['private', 'public']),
    customer_id: z.string().optional(),
    segment_id: z.string().optional(),
    parent_jti: z.string().optional(),
    act: z
      .looseObject({ sub: z.string() })
      .optional()
      .describe('RFC 8693 §4.1: the acting client; the actor chain before it nested in its act'),
    may_act: z
      .object({ sub: z.string(), scope: z.string().optional() })
      .optional()
      .describe(
        'RFC 8693 §4.4: the agent the customer allowed to exchange the token; scope: the delegation-only scopes kept for it',
      ),
    authorization_details: z
      .array(z.looseObject({ type: z.string() }))
      .optional()
      .describe('RFC 9396: what the customer allowed the agent (e.g. a spending cap)'),
  }),
]);

export const emptyObject = z.object({}).strict();

export const revocationList = z.object({
  space_id: z.string(),
  generated_at: timestamp,
  clients: z.array(z.object({ client_id: z.string(), revoked_at: timestamp })),
  tokens: z.array(z.object({ jti: z.string(), exp: z.number().int() })),
  narrowed_clients: z
    .array(z.object({ client_id: z.string(), scopes: z.array(z.string()), narrowed_at: timestamp }))
    .describe(
      'Clients whose scopes were narrowed within a token lifetime, with the scopes they allow now: refuse their tokens carrying any other',
    ),
  withdrawn_keys: z
    .array(z.object({ kid: z.string(), withdrawn_at: timestamp }))
    .describe(
      "Signing keys withdrawn (retired as compromised) of the space's ring and the shared ring, within a token lifetime, and the shared ring's once the space's switch-over was ended: refuse every token whose header names one, even while a JWKS held from before still lists it",
    ),
  removed_client_domains: z
    .array(z.object({ domain: z.string(), removed_at: timestamp }))
    .describe(
      'Client ID metadata document domains the space no longer allows, within a token lifetime: refuse every token whose client_id or act chain sub is a URL whose host is one',
    ),
  narrowed_client_domains: z
    .array(z.object({ domain: z.string(), scopes: z.array(z.string()), changed_at: timestamp }))
    .describe(
      'Client ID metadata document domains whose scopes changed within a token lifetime, with the scopes they allow now: refuse a token carrying any other whose client_id or act chain sub is a URL under one',
    ),
});

export const jwks = z.object({
  keys: z.array(z.looseObject({ kty: z.string(), kid: z.string(), alg: z.string().optional() })),
});

/** RFC 8414 §2. */
export const authorizationServerMetadata = z.object({
  issuer: z.string(),
  token_endpoint: z.string(),
  introspection_endpoint: z.string(),
  revocation_endpoint: z.string(),
  jwks_uri: z.string(),
  grant_types_supported: z.array(z.string()),
  scopes_supported: z.array(z.string()).optional(),
  response_types_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  introspection_endpoint_auth_methods_supported: z.array(z.string()),
  revocation_endpoint_auth_methods_supported: z.array(z.string()),
  token_endpoint_auth_signing_alg_values_supported: z.array(z.string()),
  dpop_signing_alg_values_supported: z.array(z.string()),
  introspection_endpoint_auth_signing_alg_values_supported: z.array(z.string()),
  revocation_endpoint_auth_signing_alg_values_supported: z.array(z.string()),
  access_token_signing_alg_values_supported: z.array(z.string()),
  client_id_metadata_document_supported: z.boolean(),
  /** A space's issuer only (issue 64): its authorization endpoint, code flow with PKCE. */
  authorization_endpoint: z.string().optional(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
  authorization_response_iss_parameter_supported: z.boolean().optional(),
});

export const auditEntry = z.object({
  position: z.number().int(),
  event_type: z.string().describe(`One of: ${EVENT_TYPES.join(', ')}.`),
  client_id: z.string().nullable(),
  token_kind: z.string().nullable(),
  audience: z.string().nullable(),
  customer_id: z.string().nullable(),
  segment_id: z.string().nullable(),
  jti: z.string().nullable(),
  parent_jti: z.string().nullable(),
  expires_at: timestamp.nullable(),
  recorded_at: timestamp,
  actor: z.string().nullable(),
  request_id: z.string().nullable(),
  client_ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  details: z.unknown(),
  trace_id: z
    .string()
    .nullable()
    .describe('The trace of the request that made the event (W3C, hex), when it was sampled.'),
  span_id: z.string().nullable().describe('The span the event was appended in, with `trace_id`.'),
});

/** A part of the trail that left the database: the archive file that holds it. */
export const archivedRange = z.object({
  from: z.string().describe('Start of the archived range (`-infinity` for the first).'),
  to: timestamp,
  file: z.string().describe('Relative to ARCHIVE_DIR.'),
  sha256: z.string(),
  events: z.number(),
});

export const auditPage = z.object({
  items: z.array(auditEntry),
  next_cursor: z.string().nullable(),
  archived: z
    .array(archivedRange)
    .describe(
      'Archived parts of the range asked for: their events are in these files, not in items. When everything asked for is archived the answer is 410 range_archived instead, naming them.',
    ),
});

export const auditCheckpoints = z.object({
  public_key: z.looseObject({ kty: z.string().optional() }).describe('An Ed25519 JWK.'),
  checkpoints: z.array(z.string().describe('A compact JWS (EdDSA) of one checkpoint.')),
});

export const liveness = z.object({ status: z.literal('ok') });

export const readiness = z.union([
  z.object({ status: z.literal('ok'), warnings: z.array(z.string()).optional() }),
  z.object({ status: z.literal('unavailable'), reason: z.string() }),
]);

/** RFC 9457 problem details, with our stable `code`. */
export const problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.string(),
  instance: z.string(),
  request_id: z.string().optional(),
  invalid_fields: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});

/** RFC 6749 §5.2, with the offending fields when a parameter was wrong. */
export const oauthError = z.object({
  error: z.string(),
  error_description: z.string(),
  invalid_fields: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});
